/**
 * Contract for the partition methods of RealtimeTablesPort (tiering, spec 4.8): listing
 * per unit (DAY, HOUR, MONTH) with QuestDB's names and whole ranges, exporting one
 * partition to Parquet, dropping one partition. Runs unchanged against every adapter.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { AppError } from "../../domain/errors.ts";
import { normaliseDdl, parseCreateTable, type RealtimeTablesPort, type Row } from "../../domain/rtdb/index.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";

export interface PartitionsHarness {
  tables: RealtimeTablesPort;
  /** A fresh tenant with a provisioned time-series namespace. */
  tenant(): Promise<TenantRef>;
  close(): Promise<void>;
}

async function create(tables: RealtimeTablesPort, t: TenantRef, ddl: string): Promise<string> {
  const spec = parseCreateTable(ddl);
  await tables.create(t, spec, normaliseDdl(spec));
  return spec.name;
}

const tick = (ts: string, sym: string, price: number, size: number): Row => ({ ts, sym, price, size });

/** All rows of a Parquet file, ordered by ts, timestamps as ISO text. */
async function readParquet(file: string): Promise<Record<string, unknown>[]> {
  const inst = await DuckDBInstance.create(":memory:");
  const conn = await inst.connect();
  try {
    const reader = await conn.runAndReadAll(
      `SELECT strftime(ts, '%Y-%m-%dT%H:%M:%S') AS ts, sym, price, size FROM read_parquet($1) ORDER BY ts, sym`,
      [file],
    );
    return reader.getRowObjectsJS().map((r) => ({ ...r, size: Number(r.size) }));
  } finally {
    conn.closeSync();
    inst.closeSync();
  }
}

export function runPartitionsContract(name: string, make: () => Promise<PartitionsHarness>): void {
  describe(`real-time partitions contract: ${name}`, () => {
    let h: PartitionsHarness;
    let dir: string;
    beforeAll(async () => {
      h = await make();
      dir = mkdtempSync(join(tmpdir(), "cairn-parts-"));
    });
    afterAll(async () => {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test("DAY partitions: QuestDB names, whole-day ranges, row counts, time order", async () => {
      const t = await h.tenant();
      const table = await create(
        h.tables,
        t,
        "CREATE TABLE ticks (sym SYMBOL, price DOUBLE, size LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      expect(await h.tables.partitions(t, table)).toEqual([]);
      await h.tables.ingest(t, table, [
        tick("2024-03-02T23:59:59.999999Z", "B", 2, 20),
        tick("2024-03-01T00:00:00Z", "A", 1, 10),
        tick("2024-03-01T12:30:00Z", "A", 1.5, 15),
        tick("2024-03-31T08:00:00Z", "C", 3, 30),
      ]);
      expect(await h.tables.partitions(t, "TICKS")).toEqual([
        { partition: "2024-03-01", from: "2024-03-01T00:00:00.000Z", to: "2024-03-02T00:00:00.000Z", rows: 2 },
        { partition: "2024-03-02", from: "2024-03-02T00:00:00.000Z", to: "2024-03-03T00:00:00.000Z", rows: 1 },
        { partition: "2024-03-31", from: "2024-03-31T00:00:00.000Z", to: "2024-04-01T00:00:00.000Z", rows: 1 },
      ]);
    });

    test("HOUR partitions are named YYYY-MM-DDTHH and span one hour", async () => {
      const t = await h.tenant();
      const table = await create(
        h.tables,
        t,
        "CREATE TABLE quotes (sym SYMBOL, price DOUBLE, size LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY HOUR WAL",
      );
      await h.tables.ingest(t, table, [
        tick("2024-12-31T23:10:00Z", "A", 1, 1),
        tick("2025-01-01T00:00:00Z", "A", 2, 2),
        tick("2025-01-01T00:59:59Z", "B", 3, 3),
      ]);
      expect(await h.tables.partitions(t, table)).toEqual([
        { partition: "2024-12-31T23", from: "2024-12-31T23:00:00.000Z", to: "2025-01-01T00:00:00.000Z", rows: 1 },
        { partition: "2025-01-01T00", from: "2025-01-01T00:00:00.000Z", to: "2025-01-01T01:00:00.000Z", rows: 2 },
      ]);
    });

    test("MONTH partitions are named YYYY-MM and span the calendar month (Feb in a leap year, Dec -> Jan)", async () => {
      const t = await h.tenant();
      const table = await create(
        h.tables,
        t,
        "CREATE TABLE bars (sym SYMBOL, price DOUBLE, size LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY MONTH WAL",
      );
      await h.tables.ingest(t, table, [
        tick("2024-02-29T10:00:00Z", "A", 1, 1),
        tick("2024-12-01T00:00:00Z", "A", 2, 2),
        tick("2024-12-31T23:00:00Z", "B", 3, 3),
      ]);
      expect(await h.tables.partitions(t, table)).toEqual([
        { partition: "2024-02", from: "2024-02-01T00:00:00.000Z", to: "2024-03-01T00:00:00.000Z", rows: 1 },
        { partition: "2024-12", from: "2024-12-01T00:00:00.000Z", to: "2025-01-01T00:00:00.000Z", rows: 2 },
      ]);
    });

    test("exportPartition writes exactly that partition's rows to Parquet and replaces a file already there", async () => {
      const t = await h.tenant();
      const table = await create(
        h.tables,
        t,
        "CREATE TABLE ticks (sym SYMBOL, price DOUBLE, size LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      await h.tables.ingest(t, table, [
        tick("2024-03-01T09:00:00Z", "A", 1.25, 10),
        tick("2024-03-01T10:00:00Z", "B", 2.5, 20),
        tick("2024-03-02T09:00:00Z", "C", 3.75, 30),
      ]);
      const file = join(dir, `${crypto.randomUUID()}.parquet`);
      expect(await h.tables.exportPartition(t, table, "2024-03-01", file)).toEqual({ rows: 2 });
      expect(await readParquet(file)).toEqual([
        { ts: "2024-03-01T09:00:00", sym: "A", price: 1.25, size: 10 },
        { ts: "2024-03-01T10:00:00", sym: "B", price: 2.5, size: 20 },
      ]);
      // Same path again (a rerun after a crash): the file is replaced, not appended to.
      expect(await h.tables.exportPartition(t, table, "2024-03-02", file)).toEqual({ rows: 1 });
      expect(await readParquet(file)).toEqual([{ ts: "2024-03-02T09:00:00", sym: "C", price: 3.75, size: 30 }]);
      // Exporting leaves the hot rows in place.
      expect((await h.tables.partitions(t, table)).map((p) => p.rows)).toEqual([2, 1]);
    });

    test("dropPartition removes that partition only, and is a no-op when repeated", async () => {
      const t = await h.tenant();
      const table = await create(
        h.tables,
        t,
        "CREATE TABLE ticks (sym SYMBOL, price DOUBLE, size LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      await h.tables.ingest(t, table, [
        tick("2024-03-01T23:59:59Z", "A", 1, 1),
        tick("2024-03-02T00:00:00Z", "B", 2, 2),
        tick("2024-03-03T00:00:00Z", "C", 3, 3),
      ]);
      await h.tables.dropPartition(t, table, "2024-03-02");
      expect((await h.tables.partitions(t, table)).map((p) => [p.partition, p.rows])).toEqual([
        ["2024-03-01", 1],
        ["2024-03-03", 1],
      ]);
      await h.tables.dropPartition(t, table, "2024-03-02");
      expect((await h.tables.partitions(t, table)).length).toBe(2);
    });

    test("partition names that do not fit the table's unit, and unknown tables, are refused", async () => {
      const t = await h.tenant();
      const table = await create(
        h.tables,
        t,
        "CREATE TABLE ticks (sym SYMBOL, price DOUBLE, size LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL",
      );
      const file = join(dir, `${crypto.randomUUID()}.parquet`);
      for (const bad of ["2024-03", "2024-03-01T00", "2024-02-30", "x'; DROP TABLE ticks; --"]) {
        const err = await h.tables.exportPartition(t, table, bad, file).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe("bad_request");
        expect(((await h.tables.dropPartition(t, table, bad).catch((e: unknown) => e)) as AppError).code).toBe(
          "bad_request",
        );
      }
      const missing = await h.tables.partitions(t, "nope").catch((e: unknown) => e);
      expect((missing as AppError).code).toBe("not_found");
    });

    test("a tenant lists, exports and drops only its own table of a name", async () => {
      const a = await h.tenant();
      const b = await h.tenant();
      const ddl =
        "CREATE TABLE ticks (sym SYMBOL, price DOUBLE, size LONG, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL";
      await create(h.tables, a, ddl);
      await create(h.tables, b, ddl);
      await h.tables.ingest(a, "ticks", [tick("2024-03-01T01:00:00Z", "A", 1, 1)]);
      await h.tables.ingest(b, "ticks", [
        tick("2024-03-01T02:00:00Z", "B", 2, 2),
        tick("2024-03-01T03:00:00Z", "B", 3, 3),
      ]);
      expect((await h.tables.partitions(a, "ticks")).map((p) => p.rows)).toEqual([1]);
      const file = join(dir, `${crypto.randomUUID()}.parquet`);
      expect(await h.tables.exportPartition(a, "ticks", "2024-03-01", file)).toEqual({ rows: 1 });
      expect((await readParquet(file)).map((r) => r.sym)).toEqual(["A"]);
      await h.tables.dropPartition(a, "ticks", "2024-03-01");
      expect(await h.tables.partitions(a, "ticks")).toEqual([]);
      expect((await h.tables.partitions(b, "ticks")).map((p) => p.rows)).toEqual([2]);
    });
  });
}
