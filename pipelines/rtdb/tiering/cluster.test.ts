/**
 * Tiering in the cluster profile: QuestDB holds the hot partitions, Postgres the tiering
 * state, an S3-compatible store (S3Proxy) the Parquet files. Same pipeline, same promises.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  SqlControlPlaneStore,
  SqlTieringStateStore,
  TIERING_MIGRATIONS,
} from "../../../adapters/controlplane/index.ts";
import { DuckDbParquetInspector } from "../../../adapters/objectstore/index.ts";
import { QuestDbTimeSeries } from "../../../adapters/rtdb/index.ts";
import { PostgresClient } from "../../../adapters/sql/index.ts";
import { TIERING_AGE_MS } from "../../../domain/rtdb/index.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import { engineUrl, freshPostgresDatabase } from "../../../test/engines.ts";
import { type Bar, loadBars, quietLogger, readDailyBars } from "../../../test/fixtures/rtdb-tiering.ts";
import { s3StoreFromUrl } from "../../../test/s3.ts";
import { sharedData } from "../../../test/shared-data.ts";
import { runTiering, type TieringDeps } from "./pipeline.ts";

const questdb = engineUrl("questdb");
const pg = engineUrl("postgres");
const s3 = engineUrl("s3");
const market = sharedData("market", "rtdb tiering (cluster)");
const d = questdb && pg && s3 && market ? describe : describe.skip;

const NOW = new Date("2015-01-05T12:00:00Z");

d("tiering on QuestDB + Postgres + S3", () => {
  let dir: string;
  let ts: QuestDbTimeSeries;
  let store: SqlControlPlaneStore;
  let dropDb: () => Promise<void>;
  let deps: TieringDeps;
  let t: TenantRef;
  let bars: Bar[];
  const parquet = new DuckDbParquetInspector();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-tier-cluster-"));
    const db = await freshPostgresDatabase(pg as string);
    dropDb = db.drop;
    store = new SqlControlPlaneStore(new PostgresClient(db.url));
    await store.migrate(TIERING_MIGRATIONS);
    ts = new QuestDbTimeSeries({ url: questdb as string, scope: `tier${crypto.randomUUID().slice(0, 6)}` });
    const tenant = await store.createTenant({
      slug: `qdb-${crypto.randomUUID().slice(0, 6)}`,
      display_name: "QuestDB tenant",
      tier: "enterprise",
      region: "local",
      provisioning_state: "active",
      is_active: true,
    });
    t = { tenantId: tenant.tenant_id, slug: tenant.slug };
    await ts.ensureNamespace(t);
    bars = readDailyBars(join(market as string, "daily", "NVDA_1999-2014_daily.csv"), "2014-10-01", "2015-01-01");
    await loadBars(ts.realtime, t, "NVDA", bars);
    deps = {
      store,
      tables: ts.realtime,
      state: new SqlTieringStateStore(store.sql),
      objects: s3StoreFromUrl(s3 as string, `cluster-${crypto.randomUUID().slice(0, 8)}`, join(dir, "cache")),
      parquet,
      stagingDir: join(dir, "staging"),
      logger: quietLogger,
      now: () => NOW,
    };
  });
  afterAll(async () => {
    await parquet.close();
    await ts.dropNamespace(t).catch(() => {});
    await ts.close();
    await store.close();
    await dropDb();
    rmSync(dir, { recursive: true, force: true });
  });

  test("old partitions move from QuestDB to the bucket, verified; a rerun does nothing", async () => {
    const before = await ts.realtime.partitions(t, "bars");
    const old = before.filter((p) => Date.parse(p.to) < NOW.getTime() - TIERING_AGE_MS);
    expect(old.length).toBeGreaterThan(50);
    const out = await runTiering(deps);
    expect(out.failures).toEqual([]);
    expect(out).toMatchObject({ parts_tiered: old.length, rows_tiered: old.length });
    expect(await ts.realtime.partitions(t, "bars")).toEqual(before.filter((p) => !old.includes(p)));
    const ns = lakehouseNamespace(t.slug);
    const keys = await deps.objects.list(`${ns}/`);
    expect(keys).toEqual(old.map((p) => `${ns}/rtdb/bars/${p.partition}/part-0.parquet`));
    // Every tiered row is in its file, with its values.
    for (const [i, p] of old.entries()) {
      const read = await parquet.inspect(await deps.objects.localPath(keys[i] as string), "ts");
      expect([p.partition, read.rows, read.min?.slice(0, 10)]).toEqual([p.partition, p.rows, p.partition]);
    }
    const states = await deps.state.parts(t.tenantId, "bars");
    expect(states.every((p) => p.state === "tiered")).toBe(true);

    const again = await runTiering(deps);
    expect(again).toMatchObject({ parts_tiered: 0, failures: [] });
    expect(await deps.objects.list(`${ns}/`)).toEqual(keys);
  });
});
