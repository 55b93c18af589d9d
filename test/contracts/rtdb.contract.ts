/**
 * Contract suite for RealtimeTablesPort (spec 2.9, 4.8): runs unchanged against the embedded
 * DuckDB engine and QuestDB. Everything a tenant can observe must be identical on both:
 * table ids, the normalised DDL rebuilt from the engine's own metadata, schema options,
 * storage estimates, partitions, and what an exported partition holds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import {
  normaliseDdl,
  parseCreateTable,
  type RealtimeRangeReader,
  type RealtimeTablesPort,
  type Row,
  type TableSpec,
} from "../../domain/rtdb/index.ts";
import type { NamespacePort, TenantRef } from "../../domain/tenants/namespaces.ts";

export interface RealtimeEngine {
  ns: NamespacePort & { countRecords(t: TenantRef): Promise<number> };
  tables: RealtimeTablesPort & RealtimeRangeReader;
  close(): Promise<void>;
}

/** A CREATE TABLE as a client writes it, and the normalised DDL every engine answers for it. */
export const TRADES =
  "create table trades (symbol SYMBOL capacity 300 nocache index, side SYMBOL, note STRING, price DOUBLE, " +
  "amount LONG, ts TIMESTAMP) timestamp(ts) partition by day wal;";
export const TRADES_DDL =
  "CREATE TABLE trades (symbol SYMBOL CAPACITY 512 NOCACHE INDEX CAPACITY 256, side SYMBOL CAPACITY 256 CACHE, " +
  "note STRING, price DOUBLE, amount LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL";

const ALL_TYPES =
  'CREATE TABLE "AllTypes" (s SYMBOL CAPACITY 3 CACHE INDEX CAPACITY 300, d DOUBLE, l LONG, i INT, sh SHORT, ' +
  "b BYTE, f FLOAT, bo BOOLEAN, st STRING, v VARCHAR, t2 TIMESTAMP, dt DATE, c CHAR, u UUID, " +
  '"timestamp" TIMESTAMP) TIMESTAMP("timestamp") PARTITION BY HOUR WAL';

function tenant(slug: string): TenantRef {
  return { tenantId: crypto.randomUUID(), slug };
}

async function create(port: RealtimeTablesPort, t: TenantRef, sql: string) {
  const spec = parseCreateTable(sql);
  return port.create(t, spec, normaliseDdl(spec));
}

/** Three trades on two days; "ab" + "cde" are the only string bytes. */
const TRADE_ROWS: Row[] = [
  { symbol: "AAPL", side: "buy", note: "ab", price: 1.5, amount: 10, ts: "2026-01-01T10:00:00Z" },
  { symbol: "AAPL", side: "sell", note: null, price: 1.6, amount: 11, ts: new Date("2026-01-01T11:00:00Z") },
  { SYMBOL: "MSFT", Side: "buy", note: "cde", price: 2.5, amount: 12, ts: 1767344400000 /* 2026-01-02T09:00Z */ },
];

async function* asBatches(rows: Row[], size: number): AsyncGenerator<Row[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

export function runRealtimeTablesContract(name: string, open: () => Promise<RealtimeEngine>): void {
  describe(`RealtimeTablesPort contract: ${name}`, () => {
    let engine: RealtimeEngine;
    let port: RealtimeTablesPort & RealtimeRangeReader;
    const a = tenant("alpha");
    const b = tenant("beta");
    let dir: string;
    let duck: DuckDBInstance;

    beforeAll(async () => {
      engine = await open();
      port = engine.tables;
      await engine.ns.ensureNamespace(a);
      await engine.ns.ensureNamespace(b);
      dir = mkdtempSync(join(tmpdir(), "cairn-rtdb-"));
      duck = await DuckDBInstance.create(":memory:", { threads: "1" });
    });
    afterAll(async () => {
      for (const t of [a, b]) await engine.ns.dropNamespace(t).catch(() => {});
      await engine.close();
      duck.closeSync();
      rmSync(dir, { recursive: true, force: true });
    });

    const readParquet = async (file: string, select: string, tail = "") => {
      const conn = await duck.connect();
      try {
        return (await conn.runAndReadAll(`SELECT ${select} FROM read_parquet('${file}') ${tail}`)).getRowObjectsJson();
      } finally {
        conn.closeSync();
      }
    };

    test("a provisioned tenant is ready; an unprovisioned one is not", async () => {
      expect(await port.ready(a)).toBe(true);
      expect(await port.ready(tenant("never"))).toBe(false);
      expect(await port.list(a)).toEqual([]);
    });

    test("create answers the normalised DDL; IF NOT EXISTS returns the existing table; a duplicate conflicts", async () => {
      const first = await create(port, a, TRADES);
      expect(first.created).toBe(true);
      expect(first.table.id).toBe(1);
      expect(first.table.ddl).toBe(TRADES_DDL);

      const again = await create(
        port,
        a,
        "CREATE TABLE IF NOT EXISTS TRADES (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY HOUR WAL",
      );
      expect(again.created).toBe(false);
      expect(again.table.ddl).toBe(TRADES_DDL);
      expect(again.table.id).toBe(1);

      await expect(create(port, a, TRADES.replace("trades", "Trades"))).rejects.toMatchObject({
        code: "conflict",
        message: "table 'trades' already exists",
      });
      await expect(
        create(port, a, "CREATE TABLE _namespace (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL"),
      ).rejects.toMatchObject({ code: "validation" });
      await expect(
        create(port, a, "CREATE TABLE _probe_x (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL"),
      ).rejects.toMatchObject({ code: "validation" });
    });

    test("the engine's own metadata rebuilds every column type and symbol option", async () => {
      const { table } = await create(port, a, ALL_TYPES);
      const spec = parseCreateTable(ALL_TYPES);
      expect(table.ddl).toBe(normaliseDdl(spec));
      const got = await port.get(a, "alltypes");
      expect(got?.spec.name).toBe("AllTypes");
      expect(got?.ddl).toBe(normaliseDdl(spec));
      expect(got?.spec.designated).toBe("timestamp");
      expect(got?.spec.partitionBy).toBe("HOUR");
      expect(got?.spec.columns.map((c) => [c.name, c.type])).toEqual(spec.columns.map((c) => [c.name, c.type]));
      // CAPACITY 3 -> 4 and INDEX CAPACITY 300 -> 512: powers of two, as QuestDB rounds.
      expect(got?.spec.columns[0]?.symbol).toEqual({ capacity: 4, cached: true, index: { capacity: 512 } });
      const trades = await port.get(a, "TRADES");
      expect(trades?.spec.columns.map((c) => c.symbol ?? null)).toEqual([
        { capacity: 512, cached: false, index: { capacity: 256 } },
        { capacity: 256, cached: true, index: null },
        null,
        null,
        null,
        null,
      ]);
    });

    test("list is in creation order with per-tenant ids", async () => {
      await create(port, a, "CREATE TABLE quotes (bid DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY MONTH WAL");
      const list = await port.list(a);
      expect(list.map((x) => [x.spec.name, x.id, x.spec.partitionBy, x.spec.wal])).toEqual([
        ["trades", 1, "DAY", true],
        ["AllTypes", 2, "HOUR", true],
        ["quotes", 3, "MONTH", true],
      ]);
    });

    test("tenants are isolated: names, ids, reads and writes", async () => {
      expect(await port.list(b)).toEqual([]);
      expect(await port.get(b, "trades")).toBeNull();
      await expect(port.ingest(b, "trades", TRADE_ROWS)).rejects.toMatchObject({ code: "not_found" });
      await expect(port.partitions(b, "trades")).rejects.toMatchObject({ code: "not_found" });
      const own = await create(
        port,
        b,
        "CREATE TABLE trades (x LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      expect(own.created).toBe(true);
      expect(own.table.id).toBe(1);
      expect((await port.get(a, "trades"))?.ddl).toBe(TRADES_DDL);
      expect((await port.storage(b)).tables.map((t) => t.name)).toEqual(["trades"]);
      expect((await port.list(a)).map((x) => x.spec.name)).toEqual(["trades", "AllTypes", "quotes"]);
    });

    test("ingest then storage: rows, estimated bytes and partitions; the other tenant is untouched", async () => {
      expect(await port.ingest(a, "Trades", asBatches(TRADE_ROWS, 2))).toEqual({ rows: 3 });
      const storage = await port.storage(a);
      expect(typeof storage.allocatedBytes).toBe("number");
      expect(storage.allocatedBytes).toBeGreaterThanOrEqual(0);
      // 3 rows x (4 + 4 + 8 + 8 + 8) fixed bytes + "ab" + "cde".
      expect(storage.tables).toEqual([
        { name: "trades", rows: 3, bytes: 101, partitions: 2 },
        { name: "AllTypes", rows: 0, bytes: 0, partitions: 0 },
        { name: "quotes", rows: 0, bytes: 0, partitions: 0 },
      ]);
      expect((await port.storage(b)).tables).toEqual([{ name: "trades", rows: 0, bytes: 0, partitions: 0 }]);
      // Tables + rows, the engine's own bookkeeping excluded.
      expect(await engine.ns.countRecords(a)).toBe(3 + 3);
      expect(await engine.ns.countRecords(b)).toBe(1);
    });

    test("bad rows are refused with the row and column; a refused batch commits nothing", async () => {
      const ok = { symbol: "X", price: 1, amount: 1, ts: "2026-01-05T00:00:00Z" };
      await expect(port.ingest(a, "trades", [ok, { ...ok, bogus: 1 }])).rejects.toMatchObject({
        code: "bad_request",
        message: "row 2: column 'bogus' is not a column of table 'trades'",
      });
      await expect(port.ingest(a, "trades", [{ ...ok, ts: null }])).rejects.toMatchObject({
        code: "bad_request",
        message: "row 1: column 'ts' is the designated timestamp and needs a value",
      });
      await expect(port.ingest(a, "trades", [{ ...ok, price: "1.5" }])).rejects.toMatchObject({ code: "bad_request" });
      await expect(port.ingest(a, "trades", [{ ...ok, amount: 1.5 }])).rejects.toMatchObject({ code: "bad_request" });
      await expect(port.ingest(a, "trades", [{ ...ok, ts: "2026-02-30" }])).rejects.toMatchObject({
        code: "bad_request",
      });
      await expect(port.ingest(a, "trades", [{ ...ok, ts: "1969-12-31T23:59:59Z" }])).rejects.toMatchObject({
        code: "bad_request",
      });
      await expect(port.ingest(a, "nope", [ok])).rejects.toMatchObject({ code: "not_found" });
      expect(await port.ingest(a, "trades", [])).toEqual({ rows: 0 });
      expect((await port.storage(a)).tables[0]).toEqual({ name: "trades", rows: 3, bytes: 101, partitions: 2 });
    });

    test("partitions: QuestDB names, [from, to) ranges and row counts for DAY, HOUR and MONTH", async () => {
      expect(await port.partitions(a, "trades")).toEqual([
        { partition: "2026-01-01", from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T00:00:00.000Z", rows: 2 },
        { partition: "2026-01-02", from: "2026-01-02T00:00:00.000Z", to: "2026-01-03T00:00:00.000Z", rows: 1 },
      ]);
      await port.ingest(a, "quotes", [
        { bid: 1, ts: "2025-12-31T23:59:59.999999Z" },
        { bid: 2, ts: "2026-01-01T00:00:00Z" },
        { bid: 3, ts: "2026-01-31T12:00:00Z" },
      ]);
      expect(await port.partitions(a, "quotes")).toEqual([
        { partition: "2025-12", from: "2025-12-01T00:00:00.000Z", to: "2026-01-01T00:00:00.000Z", rows: 1 },
        { partition: "2026-01", from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z", rows: 2 },
      ]);
      expect(await port.partitions(a, "AllTypes")).toEqual([]);
    });

    test("every type round-trips through ingest and a Parquet export of its partition", async () => {
      const row: Row = {
        s: "sym",
        d: 1.25,
        l: 9007199254740991,
        i: -2147483647,
        sh: -32768,
        b: 127,
        f: 0.5,
        bo: true,
        st: "héllo",
        v: "wörld",
        t2: "2026-03-04T05:06:07.123456Z",
        dt: "2026-03-04T05:06:07.123Z",
        c: "x",
        u: "123E4567-E89B-12D3-A456-426614174000",
        timestamp: 1772600767123456n, // 2026-03-04T05:06:07.123456Z
      };
      await expect(port.ingest(a, "alltypes", [{ timestamp: "2026-03-04T06:00:00Z" }])).rejects.toMatchObject({
        code: "bad_request",
        message: "row 1 needs a value besides the designated timestamp",
      });
      expect(await port.ingest(a, "alltypes", [row, { timestamp: "2026-03-04T06:00:00Z", bo: false }])).toEqual({
        rows: 2,
      });
      expect((await port.partitions(a, "AllTypes")).map((p) => [p.partition, p.rows])).toEqual([
        ["2026-03-04T05", 1],
        ["2026-03-04T06", 1],
      ]);
      const file = join(dir, "alltypes.parquet");
      expect(await port.exportPartition(a, "AllTypes", "2026-03-04T05", file)).toEqual({ rows: 1 });
      const [got] = await readParquet(
        file,
        `s::VARCHAR AS s, d, l::BIGINT AS l, i::INTEGER AS i, sh::INTEGER AS sh, b::INTEGER AS b, f::DOUBLE AS f,
         bo, st::VARCHAR AS st, v::VARCHAR AS v, epoch_us(t2) AS t2, epoch_ms(dt) AS dt, c::VARCHAR AS c,
         u::VARCHAR AS u, epoch_us("timestamp") AS ts`,
      );
      expect(got).toEqual({
        s: "sym",
        d: 1.25,
        l: "9007199254740991",
        i: -2147483647,
        sh: -32768,
        b: 127,
        f: 0.5,
        bo: true,
        st: "héllo",
        v: "wörld",
        t2: "1772600767123456",
        dt: "1772600767123",
        c: "x",
        u: "123e4567-e89b-12d3-a456-426614174000",
        ts: "1772600767123456",
      });
    });

    test("text with ILP's special characters round-trips unchanged (symbols, strings, varchars)", async () => {
      await create(
        port,
        b,
        "CREATE TABLE texts (s SYMBOL, st STRING, v VARCHAR, n DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      const tricky = [
        'a b,c=d\\e"f',
        "line\nbreak\r\tand tab",
        'quote " and backslash \\ at the end\\',
        "ünïcødé ✓ 数据",
      ];
      const rows: Row[] = tricky.map((t, k) => ({
        s: t,
        st: t,
        v: t,
        n: k === 0 ? -0.5 : 1e21 * k,
        ts: `2026-04-0${k + 1}T00:00:00Z`,
      }));
      expect(await port.ingest(b, "texts", rows)).toEqual({ rows: tricky.length });
      const got: Record<string, unknown>[] = [];
      for (let k = 0; k < tricky.length; k++) {
        const file = join(dir, `texts-${k}.parquet`);
        expect(await port.exportPartition(b, "texts", `2026-04-0${k + 1}`, file)).toEqual({ rows: 1 });
        got.push(...(await readParquet(file, "s::VARCHAR AS s, st::VARCHAR AS st, v::VARCHAR AS v, n")));
      }
      expect(got).toEqual(tricky.map((t, k) => ({ s: t, st: t, v: t, n: k === 0 ? -0.5 : 1e21 * k })));
    });

    test("export then drop a partition: the file holds its rows, the table no longer does; drops repeat", async () => {
      const file = join(dir, "trades-2026-01-01.parquet");
      expect(await port.exportPartition(a, "trades", "2026-01-01", file)).toEqual({ rows: 2 });
      expect(await readParquet(file, "symbol::VARCHAR AS symbol, price, epoch_us(ts) AS us", "ORDER BY us")).toEqual([
        { symbol: "AAPL", price: 1.5, us: "1767261600000000" },
        { symbol: "AAPL", price: 1.6, us: "1767265200000000" },
      ]);
      const empty = join(dir, "empty.parquet");
      expect(await port.exportPartition(a, "trades", "2025-06-01", empty)).toEqual({ rows: 0 });
      await expect(port.exportPartition(a, "trades", "2026-01", empty)).rejects.toMatchObject({
        code: "bad_request",
      });

      await port.dropPartition(a, "trades", "2026-01-01");
      expect((await port.partitions(a, "trades")).map((p) => p.partition)).toEqual(["2026-01-02"]);
      await port.dropPartition(a, "trades", "2026-01-01");
      await port.dropPartition(a, "trades", "2024-01-01");
      expect((await port.storage(a)).tables[0]).toEqual({ name: "trades", rows: 1, bytes: 35, partitions: 1 });
      // The most recent partition can go too.
      await port.dropPartition(a, "trades", "2026-01-02");
      expect(await port.partitions(a, "trades")).toEqual([]);
      await expect(port.dropPartition(b, "quotes", "2026-01")).rejects.toMatchObject({ code: "not_found" });
    });

    test("a range read merges hot rows and tiered files in time order, never twice", async () => {
      await create(
        port,
        a,
        "CREATE TABLE ticks (sym SYMBOL, px DOUBLE, qty LONG, at DATE, id UUID, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      await port.ingest(a, "ticks", [
        { sym: "A", px: 1.5, qty: 1, at: "2026-02-01T00:00:00.001Z", ts: "2026-02-01T10:00:00.000001Z" },
        { sym: "B", px: 2.5, qty: 2, id: "123e4567-e89b-12d3-a456-426614174000", ts: "2026-02-02T09:00:00Z" },
        { sym: "A", px: 3.5, qty: 3, ts: "2026-02-03T08:00:00Z" },
      ]);
      const day1 = join(dir, "ticks-2026-02-01.parquet");
      expect(await port.exportPartition(a, "ticks", "2026-02-01", day1)).toEqual({ rows: 1 });
      const range = { from: "2026-02-01T00:00:00Z", to: "2026-02-03T00:00:00Z" };
      const expected = {
        columns: ["sym", "px", "qty", "at", "id", "ts"],
        rows: [
          ["A", 1.5, 1, "2026-02-01T00:00:00.001000Z", null, "2026-02-01T10:00:00.000001Z"],
          ["B", 2.5, 2, null, "123e4567-e89b-12d3-a456-426614174000", "2026-02-02T09:00:00.000000Z"],
        ],
      };
      // Exported but not yet dropped: the hot copy is read, the file is not.
      const file = { partition: "2026-02-01", path: day1, onlyIfHotAbsent: true };
      expect(await port.readRange(a, "ticks", range, [file], 10)).toEqual(expected);
      await port.dropPartition(a, "ticks", "2026-02-01");
      expect(await port.readRange(a, "ticks", range, [file], 10)).toEqual(expected);
      expect(await port.readRange(a, "ticks", range, [{ ...file, onlyIfHotAbsent: false }], 10)).toEqual(expected);
      expect((await port.readRange(a, "ticks", range, [], 10)).rows).toEqual(expected.rows.slice(1));
      await expect(port.readRange(a, "ticks", range, [file], 1)).rejects.toMatchObject({ code: "payload_too_large" });
      await expect(port.readRange(b, "ticks", range, [], 10)).rejects.toMatchObject({ code: "not_found" });
    });

    test("bulk ingest in batches: every row lands once, in the right partitions", async () => {
      const spec: TableSpec = parseCreateTable(
        "CREATE TABLE bars (symbol SYMBOL, close DOUBLE, volume LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      await port.create(a, spec, normaliseDdl(spec));
      const start = Date.UTC(2026, 0, 1);
      const rows: Row[] = Array.from({ length: 120_000 }, (_, i) => ({
        symbol: i % 3 === 0 ? "A" : "B",
        close: i / 4,
        volume: i,
        ts: start + i * 3_600, // 3.6 s apart: 100,000 rows reach into 2026-01-05
      }));
      expect(await port.ingest(a, "bars", asBatches(rows, 70_000))).toEqual({ rows: 120_000 });
      const parts = await port.partitions(a, "bars");
      expect(parts.map((p) => p.partition)).toEqual([
        "2026-01-01",
        "2026-01-02",
        "2026-01-03",
        "2026-01-04",
        "2026-01-05",
      ]);
      expect(parts.map((p) => p.rows)).toEqual([24_000, 24_000, 24_000, 24_000, 24_000]);
      const usage = (await port.storage(a)).tables.find((t) => t.name === "bars");
      expect(usage).toEqual({ name: "bars", rows: 120_000, bytes: 120_000 * 28, partitions: 5 });
    }, 120_000);
  });
}
