/**
 * Tiering as the service runs it: main.ts schedules runs on the durable queue, a worker
 * tiers old partitions, and GET /v1/rtdb/storage reports what is tiered and where.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { DuckDbTimeSeries } from "../../../adapters/rtdb/index.ts";
import { realtimeEngine } from "../../../composition/engines.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import { TIERING_NOTE } from "../../../http/routes/rtdb/storage-routes.ts";
import { type Bar, loadBars, readDailyBars } from "../../../test/fixtures/rtdb-tiering.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { sharedData } from "../../../test/shared-data.ts";
import { waitFor } from "../../../test/wait.ts";
import { RTDB_TIERING_QUEUE } from "./pipeline.ts";

const market = sharedData("market", "rtdb tiering service");
const d = market ? describe : describe.skip;

let svc: TestService;
let token: string;
let tenant: TenantRef;
let old: Bar[];

const storage = async (tok: string) =>
  (await (await svc.request("/v1/rtdb/storage", { headers: { authorization: `Bearer ${tok}` } })).json()) as {
    tables: [string, number, number, number][];
    tiering_note: string;
  };

d("scheduled tiering in the service", () => {
  beforeAll(async () => {
    // A run every second on the real clock: 2014 bars are long past the 7 days.
    svc = await startTestService({ CAIRN_TIERING_INTERVAL_MS: "1000" });
    const { store } = svc.service;
    const row = await store.getTenant(svc.tenantId);
    tenant = { tenantId: svc.tenantId, slug: row?.slug as string };
    await (svc.service.engines.timeseries as DuckDbTimeSeries).ensureNamespace(tenant);
    token = await svc.token("tier@example.com", "enterprise");
    old = readDailyBars(join(market as string, "daily", "ORCL_1995-2014_daily.csv"), "2014-12-01", "2015-01-01");
  });
  afterAll(() => svc.close());

  test("old partitions are tiered by a queued run; the storage note says how many, how big and where", async () => {
    const tables = realtimeEngine(svc.service.engines.timeseries) as DuckDbTimeSeries["realtime"];
    await loadBars(tables, tenant, "ORCL", old);
    const fresh = { ts: new Date().toISOString(), open: 1, high: 1, low: 1, close: 1, volume: 1 };
    await tables.ingest(tenant, "bars", [{ symbol: "ORCL", ...fresh }]);

    await waitFor(
      "the old partitions to be tiered",
      async () => (await tables.partitions(tenant, "bars")).length === 1,
      {
        timeoutMs: 30_000,
        everyMs: 100,
      },
    );
    const body = await storage(token);
    // The storage rows count the hot data: the one fresh row.
    expect(body.tables.map((r) => r.slice(0, 2))).toEqual([["bars", 1]]);
    const summary = (await svc.service.deps.rtdb.storage(tenant)).tiered;
    expect(summary?.rows).toBe(old.length);
    const objectsDir = join(svc.service.config.dataDir, "lakehouse", "objects");
    const location = `file://${objectsDir}/${lakehouseNamespace(tenant.slug)}/rtdb/`;
    expect(summary?.location).toBe(location);
    expect(body.tiering_note).toBe(
      `${TIERING_NOTE} Tiered: ${old.length} partitions of 1 table, ${old.length} rows in ` +
        `${summary?.bytes.toLocaleString("en-US")} bytes of Parquet at ${location}.`,
    );
    // The run that did it is a completed job on the durable queue.
    const { queue } = svc.service;
    const now = Date.now();
    const ids = Array.from({ length: 60 }, (_, i) => `rtdb-tiering-${Math.floor(now / 1000) - i}`);
    const jobs = (await Promise.all(ids.map((id) => queue.getJob(RTDB_TIERING_QUEUE, id)))).filter((j) => j !== null);
    expect(jobs.length).toBeGreaterThan(0);
    const done = jobs.filter((j) => j?.status === "completed");
    expect(done.some((j) => (j?.result as { parts_tiered?: number } | null)?.parts_tiered === old.length)).toBe(true);
    // Reads through the service's view still see every row.
    const rows = await svc.service.deps.rtdb.read(tenant, "bars", {
      from: "2014-01-01T00:00:00Z",
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(rows?.rows.length).toBe(old.length + 1);
  });
});
