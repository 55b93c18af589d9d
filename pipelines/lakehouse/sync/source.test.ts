/** Reading source tables on both dialects: types, values, cursor windows. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  LAKEHOUSE_MIGRATIONS,
  SqlControlPlaneStore,
  sourceSchemaAttachments,
} from "../../../adapters/controlplane/index.ts";
import { PostgresClient, SqliteClient } from "../../../adapters/sql/index.ts";
import type { SqlClient } from "../../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase } from "../../../test/engines.ts";
import {
  describeSourceTable,
  icebergTypeForPostgres,
  icebergTypeForSqlite,
  maxCursor,
  readSourceRows,
  toWire,
} from "./source.ts";

test("SQLite declared types map by affinity", () => {
  const cases: [string, string][] = [
    ["INTEGER", "long"],
    ["BIGINT", "long"],
    ["BOOLEAN", "boolean"],
    ["VARCHAR(20)", "string"],
    ["TEXT", "string"],
    ["BLOB", "binary"],
    ["REAL", "double"],
    ["DOUBLE PRECISION", "double"],
    ["DECIMAL(12,2)", "decimal(12,2)"],
    ["NUMERIC(10)", "decimal(10,0)"],
    ["NUMERIC", "double"],
    ["NUMERIC(50,2)", "double"],
    ["DATE", "date"],
    ["DATETIME", "timestamp"],
    ["TIMESTAMP", "timestamp"],
    ["TIMESTAMPTZ", "timestamptz"],
    ["", "string"],
  ];
  for (const [declared, want] of cases) expect([declared, icebergTypeForSqlite(declared)]).toEqual([declared, want]);
});

test("Postgres data types map to Iceberg types", () => {
  expect(icebergTypeForPostgres("integer", 32, 0)).toBe("int");
  expect(icebergTypeForPostgres("bigint", 64, 0)).toBe("long");
  expect(icebergTypeForPostgres("numeric", 18, 4)).toBe("decimal(18,4)");
  expect(icebergTypeForPostgres("numeric", null, null)).toBe("double");
  expect(icebergTypeForPostgres("timestamp with time zone", null, null)).toBe("timestamptz");
  expect(icebergTypeForPostgres("jsonb", null, null)).toBe("string");
});

test("wire values follow the gateway's JSON spellings", () => {
  expect(toWire(1, "boolean")).toBe(true);
  expect(toWire("9007199254740993", "long")).toBe("9007199254740993");
  expect(toWire(42n, "long")).toBe(42);
  expect(toWire(12.5, "decimal(12,2)")).toBe("12.50");
  expect(toWire(0.1 + 0.2, "decimal(12,2)")).toBe("0.30");
  expect(toWire("12.345", "decimal(10,3)")).toBe("12.345");
  expect(toWire(new Date("2024-01-02T00:00:00Z"), "date")).toBe("2024-01-02");
  expect(toWire(new Date("2024-01-02T10:11:12.345Z"), "timestamp")).toBe("2024-01-02T10:11:12.345");
  expect(toWire("2024-01-02 10:11:12", "timestamp")).toBe("2024-01-02T10:11:12");
  expect(toWire(new Uint8Array([1, 2, 255]), "binary")).toBe("AQL/");
  expect(toWire({ a: 1 }, "string")).toBe('{"a":1}');
  expect(toWire(null, "long")).toBeNull();
});

test("maxCursor compares numbers numerically and times by instant", () => {
  expect(maxCursor("9", "10", "long")).toBe("10");
  expect(maxCursor("9", "10", "string")).toBe("9");
  expect(maxCursor("2.5", "10", "decimal(10,2)")).toBe("10");
  expect(maxCursor("2024-01-02 10:00:00+00", "2024-01-02 11:00:00+02", "timestamptz")).toBe("2024-01-02 10:00:00+00");
  expect(maxCursor(null, "3", "long")).toBe("3");
  expect(maxCursor("3", null, "long")).toBe("3");
});

function runSourceSuite(name: string, make: () => Promise<{ sql: SqlClient; cleanup: () => Promise<void> }>) {
  describe(`source tables: ${name}`, () => {
    let sql: SqlClient;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ sql, cleanup } = await make());
      await new SqlControlPlaneStore(sql).migrate(LAKEHOUSE_MIGRATIONS);
      await sql.exec(`CREATE TABLE dm.quotes (
        id INTEGER NOT NULL PRIMARY KEY, ticker VARCHAR(12) NOT NULL, px DECIMAL(12,2), live BOOLEAN,
        seen_at TIMESTAMP, version BIGINT)`);
      const rows: [number, string, number, boolean, string, number][] = [
        [1, "AAA", 10.5, true, "2024-01-01 09:00:00", 1],
        [2, "BBB", 20.25, false, "2024-01-01 09:30:00", 2],
        [3, "CCC", 30, true, "2024-01-01 10:00:00", 2],
        [4, "DDD", 40.1, true, "2024-01-01 10:30:00", 2],
        [5, "EEE", 50, false, "2024-01-01 11:00:00", 10],
      ];
      for (const r of rows) {
        await sql.run("INSERT INTO dm.quotes (id, ticker, px, live, seen_at, version) VALUES (?, ?, ?, ?, ?, ?)", r);
      }
      await sql.run("INSERT INTO dm.quotes (id, ticker) VALUES (?, ?)", [6, "NUL"]);
    });
    afterAll(async () => {
      await sql.close();
      await cleanup();
    });

    test("describe: columns in order with Iceberg types; null for a missing table", async () => {
      const cols = await describeSourceTable(sql, "dm", "quotes");
      expect(cols?.map((c) => [c.name, c.type])).toEqual([
        ["id", sql.dialect === "sqlite" ? "long" : "int"],
        ["ticker", "string"],
        ["px", "decimal(12,2)"],
        ["live", "boolean"],
        ["seen_at", "timestamp"],
        ["version", "long"],
      ]);
      expect(cols?.find((c) => c.name === "id")?.nullable).toBe(false);
      expect(cols?.find((c) => c.name === "px")?.nullable).toBe(true);
      expect(await describeSourceTable(sql, "dm", "nope")).toBeNull();
      await expect(describeSourceTable(sql, "dm", 'x"; DROP TABLE dm.quotes; --')).rejects.toThrow(/must match/);
    });

    test("full read: every row in wire form", async () => {
      const cols = (await describeSourceTable(sql, "dm", "quotes")) ?? [];
      const { rows } = await readSourceRows(sql, { schema: "dm", table: "quotes", columns: cols, limit: 100 });
      expect(rows).toHaveLength(6);
      // The Postgres driver hands Date objects (ISO with milliseconds); SQLite hands its text.
      const ts = sql.dialect === "postgres" ? "2024-01-01T09:30:00.000" : "2024-01-01T09:30:00";
      expect(rows.find((r) => r[0] === 2)).toEqual([2, "BBB", "20.25", false, ts, 2]);
      expect(rows.find((r) => r[0] === 6)).toEqual([6, "NUL", null, null, null, null]);
    });

    test("a per-tenant table (tenant_id column) is read for the sync's tenant only, never without one", async () => {
      await sql.exec(
        "CREATE TABLE pm.positions (tenant_id TEXT NOT NULL, ticker TEXT NOT NULL, qty BIGINT, seq BIGINT)",
      );
      for (const r of [
        ["t-a", "AAA", 1, 1],
        ["t-b", "BBB", 2, 2],
        ["t-a", "CCC", 3, 3],
      ] as const) {
        await sql.run("INSERT INTO pm.positions (tenant_id, ticker, qty, seq) VALUES (?, ?, ?, ?)", [...r]);
      }
      const cols = (await describeSourceTable(sql, "pm", "positions")) ?? [];
      const full = await readSourceRows(sql, {
        schema: "pm",
        table: "positions",
        columns: cols,
        limit: 10,
        tenantId: "t-a",
      });
      expect(full.rows.map((r) => r[1]).sort()).toEqual(["AAA", "CCC"]);
      const seq = cols.find((c) => c.name === "seq");
      if (!seq) throw new Error("seq column missing");
      const inc = await readSourceRows(sql, {
        schema: "pm",
        table: "positions",
        columns: cols,
        limit: 10,
        tenantId: "t-b",
        cursor: { column: seq, after: null },
      });
      expect(inc.rows.map((r) => r[1])).toEqual(["BBB"]);
      await expect(readSourceRows(sql, { schema: "pm", table: "positions", columns: cols, limit: 10 })).rejects.toThrow(
        "per tenant",
      );
    });

    test("incremental windows: after, up to, ordered, NULL cursors skipped, numeric comparison", async () => {
      const cols = (await describeSourceTable(sql, "dm", "quotes")) ?? [];
      const version = cols.find((c) => c.name === "version");
      const seen = cols.find((c) => c.name === "seen_at");
      if (!version || !seen) throw new Error("columns missing");
      const all = await readSourceRows(sql, {
        schema: "dm",
        table: "quotes",
        columns: cols,
        limit: 100,
        cursor: { column: version, after: null },
      });
      expect(all.cursors).toEqual(["1", "2", "2", "2", "10"]);
      // "10" > "9" only numerically: a text comparison would drop it.
      const after = await readSourceRows(sql, {
        schema: "dm",
        table: "quotes",
        columns: cols,
        limit: 100,
        cursor: { column: version, after: "9" },
      });
      expect(after.rows.map((r) => r[0])).toEqual([5]);
      const window = await readSourceRows(sql, {
        schema: "dm",
        table: "quotes",
        columns: cols,
        limit: 100,
        cursor: { column: version, after: "1", upTo: "2" },
      });
      expect(window.rows.map((r) => r[0]).sort()).toEqual([2, 3, 4]);
      const times = await readSourceRows(sql, {
        schema: "dm",
        table: "quotes",
        columns: cols,
        limit: 2,
        cursor: { column: seen, after: null },
      });
      expect(times.rows.map((r) => r[0])).toEqual([1, 2]);
      const later = await readSourceRows(sql, {
        schema: "dm",
        table: "quotes",
        columns: cols,
        limit: 10,
        cursor: { column: seen, after: times.cursors.at(-1) ?? null },
      });
      expect(later.rows.map((r) => r[0])).toEqual([3, 4, 5]);
    });
  });
}

runSourceSuite("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-src-"));
  const sql = new SqliteClient(join(dir, "cp.sqlite"), { attach: sourceSchemaAttachments(dir) });
  return { sql, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

const pg = engineUrl("postgres");
if (pg) {
  runSourceSuite("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return { sql: new PostgresClient(db.url), cleanup: db.drop };
  });
}
