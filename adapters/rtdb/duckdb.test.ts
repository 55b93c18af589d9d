import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { DuckDbTimeSeries } from "./duckdb.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-ts-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a tenant's namespace is a schema named by its prefix, with a UTC created_at marker", async () => {
  const ts = new DuckDbTimeSeries({ dataDir: dir, threads: 1 });
  const t = { tenantId: crypto.randomUUID(), slug: "acme" };
  const before = Date.now();
  const ns = await ts.ensureNamespace(t);
  expect(ns).toBe(`t_${t.tenantId.replaceAll("-", "")}`);
  await ts.close();

  const inst = await DuckDBInstance.create(ts.path);
  const conn = await inst.connect();
  const rows = (await conn.runAndReadAll(`SELECT epoch_ms(created_at) AS ms FROM "${ns}"._namespace`)).getRowObjects();
  expect(rows).toHaveLength(1);
  const ms = Number(rows[0]?.ms);
  expect(ms).toBeGreaterThanOrEqual(before - 1);
  expect(ms).toBeLessThanOrEqual(Date.now());
  // A table a later area adds under the schema counts as the tenant's, and goes with a drop.
  await conn.run(`CREATE TABLE "${ns}".trades (ts TIMESTAMP, price DOUBLE)`);
  await conn.run(`INSERT INTO "${ns}".trades VALUES (now()::TIMESTAMP, 1.0)`);
  conn.closeSync();
  inst.closeSync();

  const again = new DuckDbTimeSeries({ dataDir: dir, threads: 1 });
  expect(await again.countRecords(t)).toBe(2);
  await again.dropNamespace(t);
  expect(await again.namespaceExists(t)).toBe(false);
  expect(await again.countRecords(t)).toBe(0);
  await again.close();
});
