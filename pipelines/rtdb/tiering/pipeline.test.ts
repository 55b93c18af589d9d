import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppError } from "../../../domain/errors.ts";
import { partitionRange, TIERING_AGE_MS } from "../../../domain/rtdb/index.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import {
  addTenant,
  type Bar,
  loadBars,
  openTieringEnv,
  readDailyBars,
  readIntradayBars,
  type TieringEnv,
} from "../../../test/fixtures/rtdb-tiering.ts";
import { sharedData } from "../../../test/shared-data.ts";
import { runTiering } from "./pipeline.ts";

const market = sharedData("market", "rtdb tiering");
const d = market ? describe : describe.skip;

// ORCL's daily bars for the second half of 2014: one DAY partition per trading day.
const NOW = new Date("2015-01-05T12:00:00Z");
const FULL = { from: "2014-01-01T00:00:00Z", to: "2015-02-01T00:00:00Z" };

let dir: string;
let env: TieringEnv;
let acme: TenantRef;
let bars: Bar[];

d("tiering pipeline (DuckDB, SQLite control plane, local object store)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-tier-"));
    env = await openTieringEnv(dir);
    acme = await addTenant(env, `acme-${crypto.randomUUID().slice(0, 6)}`);
    bars = readDailyBars(join(market as string, "daily", "ORCL_1995-2014_daily.csv"), "2014-07-01", "2015-01-01");
    await loadBars(env.ts.realtime, acme, "ORCL", bars);
  });
  afterAll(async () => {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rowsOf = async (t: TenantRef, range = FULL) => (await env.reader.read(t, "bars", range)).rows;
  const cutoff = NOW.getTime() - TIERING_AGE_MS;

  test("exports every partition that ended more than 7 days ago, verified, then drops it", async () => {
    const before = await env.ts.realtime.partitions(acme, "bars");
    const old = before.filter((p) => Date.parse(p.to) < cutoff);
    const young = before.filter((p) => Date.parse(p.to) >= cutoff);
    expect(old.length).toBeGreaterThan(100);
    expect(young.length).toBeGreaterThan(0);
    const hotBefore = await rowsOf(acme);

    const out = await runTiering(env.deps({ now: () => NOW }));
    expect(out).toMatchObject({ tenants: 1, tables: 1, parts_tiered: old.length, rows_tiered: old.length });
    expect(out.failures).toEqual([]);

    // Hot: exactly the young partitions are left.
    expect(await env.ts.realtime.partitions(acme, "bars")).toEqual(young);
    // Object store: one Parquet file per old partition under the tenant's namespace, each whole.
    const ns = lakehouseNamespace(acme.slug);
    const keys = await env.objects.list(`${ns}/`);
    expect(keys).toEqual(old.map((p) => `${ns}/rtdb/bars/${p.partition}/part-0.parquet`));
    for (const p of old.slice(0, 20)) {
      const file = await env.objects.localPath(`${ns}/rtdb/bars/${p.partition}/part-0.parquet`);
      const read = await env.parquet.inspect(file, "ts");
      expect(read.rows).toBe(p.rows);
      expect(Date.parse(read.min as string)).toBeGreaterThanOrEqual(Date.parse(p.from));
    }
    const parts = await env.state.parts(acme.tenantId, "bars");
    expect(parts.map((p) => [p.partition, p.state, p.rows])).toEqual(old.map((p) => [p.partition, "tiered", p.rows]));
    expect(parts.every((p) => p.bytes > 0 && p.lastError === null)).toBe(true);
    // Nothing left staged.
    expect(readdirSync(env.stagingDir)).toEqual([]);
    // The reader answers the same rows as before, across the boundary.
    expect(await rowsOf(acme)).toEqual(hotBefore);
  });

  test("a rerun changes nothing: no new files, no rewrites, hot rows untouched", async () => {
    const ns = lakehouseNamespace(acme.slug);
    const keys = await env.objects.list(`${ns}/`);
    const mtimes = await Promise.all(keys.map(async (k) => statSync(await env.objects.localPath(k)).mtimeMs));
    const hot = await env.ts.realtime.partitions(acme, "bars");
    const out = await runTiering(env.deps({ now: () => NOW }));
    expect(out).toMatchObject({ parts_tiered: 0, rows_tiered: 0, failures: [] });
    expect(await env.objects.list(`${ns}/`)).toEqual(keys);
    expect(await Promise.all(keys.map(async (k) => statSync(await env.objects.localPath(k)).mtimeMs))).toEqual(mtimes);
    expect(await env.ts.realtime.partitions(acme, "bars")).toEqual(hot);
  });

  test("the reader returns hot + tiered rows in time order across the boundary, and only the range asked", async () => {
    const all = await rowsOf(acme);
    expect(all.length).toBe(bars.length);
    const [cols] = [(await env.reader.read(acme, "bars", FULL)).columns];
    expect(cols).toEqual(["symbol", "open", "high", "low", "close", "volume", "ts"]);
    expect(all.map((r) => r[6])).toEqual(bars.map((b) => b.ts));
    expect(all.map((r) => r[4])).toEqual(bars.map((b) => b.close));
    // A range straddling the cutoff: tiered days before it, hot days after it.
    const from = new Date(cutoff - 10 * 86_400_000).toISOString();
    const to = new Date(cutoff + 5 * 86_400_000).toISOString();
    const mid = await rowsOf(acme, { from, to });
    const expected = bars.filter((b) => b.ts >= from.replace("Z", "") && Date.parse(b.ts) < Date.parse(to));
    expect(mid.map((r) => r[6])).toEqual(expected.map((b) => b.ts));
    expect(mid.some((r) => Date.parse(r[6] as string) < cutoff - 86_400_000)).toBe(true);
    expect(mid.some((r) => Date.parse(r[6] as string) >= cutoff)).toBe(true);
    // A limit is a ceiling, not a silent truncation.
    const err = await env.reader.read(acme, "bars", FULL, 10).catch((e: unknown) => e);
    expect((err as AppError).code).toBe("payload_too_large");
  });

  test("late rows written into a tiered partition become its part 1, tiered on the next run", async () => {
    const day = "2014-08-04";
    const late = { symbol: "ORCL", open: 1, high: 2, low: 0.5, close: 1.5, volume: 7, ts: `${day}T15:30:00Z` };
    await env.ts.realtime.ingest(acme, "bars", [late]);
    const out = await runTiering(env.deps({ now: () => NOW }));
    expect(out).toMatchObject({ parts_tiered: 1, rows_tiered: 1, failures: [] });
    const parts = (await env.state.parts(acme.tenantId, "bars")).filter((p) => p.partition === day);
    expect(parts.map((p) => [p.part, p.state, p.rows])).toEqual([
      [0, "tiered", 1],
      [1, "tiered", 1],
    ]);
    const rows = await rowsOf(acme, partitionRange("DAY", day));
    expect(rows.map((r) => r[6])).toEqual([`${day}T00:00:00.000000Z`, `${day}T15:30:00.000000Z`]);
  });

  test("rows arriving during an export fail the verification: nothing is published or dropped; the rerun takes them", async () => {
    const t = await addTenant(env, `race-${crypto.randomUUID().slice(0, 6)}`);
    const intraday = readIntradayBars(join(market as string, "intraday", "index_2006_5min.csv"));
    await loadBars(env.ts.realtime, t, "IDX", intraday);
    const now = new Date("2006-02-05T00:00:00Z");
    const day = "2006-01-03";
    const original = (await env.ts.realtime.partitions(t, "bars")).find((p) => p.partition === day);
    let injected = false;
    const out = await runTiering(
      env.deps({
        now: () => now,
        onStage: async (stage, key) => {
          if (stage === "staged" && key.tenantId === t.tenantId && key.partition === day && !injected) {
            injected = true;
            await env.ts.realtime.ingest(t, "bars", [
              { symbol: "IDX", open: 1, high: 1, low: 1, close: 1, volume: 1, ts: `${day}T23:00:00Z` },
            ]);
          }
        },
      }),
    );
    expect(injected).toBe(true);
    expect(out.failures.map((f) => f.partition)).toEqual([day]);
    expect(out.failures[0]?.error).toContain("row counts disagree");
    const ns = lakehouseNamespace(t.slug);
    expect(await env.objects.stat(`${ns}/rtdb/bars/${day}/part-0.parquet`)).toBeNull();
    const hot = (await env.ts.realtime.partitions(t, "bars")).find((p) => p.partition === day);
    expect(hot?.rows).toBe((original?.rows ?? 0) + 1);
    const [part] = (await env.state.parts(t.tenantId, "bars")).filter((p) => p.partition === day);
    expect(part?.state).toBe("pending");
    expect(part?.lastError).toContain("row counts disagree");
    // The reader does not read a pending part: every row once.
    expect((await env.reader.read(t, "bars", partitionRange("DAY", day))).rows.length).toBe(hot?.rows ?? -1);

    const again = await runTiering(env.deps({ now: () => now }));
    expect(again.failures).toEqual([]);
    const file = await env.objects.localPath(`${ns}/rtdb/bars/${day}/part-0.parquet`);
    expect((await env.parquet.inspect(file, "ts")).rows).toBe((original?.rows ?? 0) + 1);
    expect((await env.ts.realtime.partitions(t, "bars")).map((p) => p.partition)).toEqual(["2006-01-30"]);
    expect(
      (await env.reader.read(t, "bars", { from: "2006-01-01T00:00:00Z", to: "2006-02-01T00:00:00Z" })).rows.length,
    ).toBe(intraday.length + 1);
  });

  test("a part published but not yet dropped (exported) is read once: from the hot rows", async () => {
    const t = await addTenant(env, `half-${crypto.randomUUID().slice(0, 6)}`);
    const few = bars.slice(0, 5);
    await loadBars(env.ts.realtime, t, "ORCL", few);
    const out = await runTiering(
      env.deps({
        now: () => NOW,
        onStage: (stage, key) => {
          if (stage === "recorded" && key.tenantId === t.tenantId) throw new Error("stop after recording");
        },
      }),
    );
    expect(out.failures.filter((f) => f.tenant_id === t.tenantId).length).toBe(5);
    const parts = await env.state.parts(t.tenantId, "bars");
    expect(parts.map((p) => p.state)).toEqual(["exported", "exported", "exported", "exported", "exported"]);
    expect((await env.ts.realtime.partitions(t, "bars")).length).toBe(5);
    expect((await env.reader.read(t, "bars", FULL)).rows.map((r) => r[6])).toEqual(few.map((b) => b.ts));
    // Finished by the next run; still every row once.
    await runTiering(env.deps({ now: () => NOW }));
    expect((await env.state.parts(t.tenantId, "bars")).map((p) => p.state)).toEqual(Array(5).fill("tiered"));
    expect(await env.ts.realtime.partitions(t, "bars")).toEqual([]);
    expect((await env.reader.read(t, "bars", FULL)).rows.map((r) => r[6])).toEqual(few.map((b) => b.ts));
  });

  test("a tenant never sees another's tiered files", async () => {
    const other = await addTenant(env, `other-${crypto.randomUUID().slice(0, 6)}`);
    const nvda = readDailyBars(join(market as string, "daily", "NVDA_1999-2014_daily.csv"), "2014-07-01", "2015-01-01");
    await loadBars(env.ts.realtime, other, "NVDA", nvda);
    await runTiering(env.deps({ now: () => NOW }));
    const mine = await rowsOf(acme);
    const theirs = await rowsOf(other);
    expect(new Set(mine.map((r) => r[0]))).toEqual(new Set(["ORCL"]));
    expect(new Set(theirs.map((r) => r[0]))).toEqual(new Set(["NVDA"]));
    expect(theirs.length).toBe(nvda.length);
    const otherNs = lakehouseNamespace(other.slug);
    expect((await env.objects.list(`${otherNs}/`)).length).toBeGreaterThan(100);
    expect((await env.objects.list(`${lakehouseNamespace(acme.slug)}/`)).some((k) => k.startsWith(otherNs))).toBe(
      false,
    );
    // Summaries count only the tenant's own parts, at its own prefix.
    const a = await env.reader.summary(acme);
    const b = await env.reader.summary(other);
    expect(a.location.endsWith(`/${lakehouseNamespace(acme.slug)}/rtdb/`)).toBe(true);
    expect(b.rows).toBe((await env.state.parts(other.tenantId, "bars")).reduce((n, p) => n + p.rows, 0));
    expect(a.rows).not.toBe(b.rows);
    // A state row pointing outside the tenant's namespace is refused, never read.
    await env.store.sql.run(
      `INSERT INTO rtdb_tiering (tenant_id, table_key, table_name, partition_name, part, state, range_from, range_to,
         row_count, bytes, object_key, created_at, updated_at)
       SELECT ?, table_key, table_name, partition_name, part + 10, 'tiered', range_from, range_to, row_count, bytes,
              object_key, created_at, updated_at
         FROM rtdb_tiering WHERE tenant_id = ? LIMIT 1`,
      [acme.tenantId, other.tenantId],
    );
    const err = await rowsOf(acme).catch((e: unknown) => e);
    expect((err as AppError).code).toBe("internal");
    await env.store.sql.run("DELETE FROM rtdb_tiering WHERE tenant_id = ? AND part >= 10", [acme.tenantId]);
  });

  test("inactive tenants and tenants without real-time tables are left alone", async () => {
    const idle = await addTenant(env, `idle-${crypto.randomUUID().slice(0, 6)}`);
    await loadBars(env.ts.realtime, idle, "ORCL", bars.slice(0, 3));
    await env.store.updateTenant(idle.tenantId, { is_active: false });
    await addTenant(env, `empty-${crypto.randomUUID().slice(0, 6)}`);
    const out = await runTiering(env.deps({ now: () => NOW }));
    expect(out.failures).toEqual([]);
    expect((await env.ts.realtime.partitions(idle, "bars")).length).toBe(3);
    expect(await env.state.parts(idle.tenantId, "bars")).toEqual([]);
  });
});
