/**
 * Tiering onto an S3-compatible store (S3Proxy from scripts/s3proxy.sh): the same pipeline
 * publishes with PUT, verifies, drops; the reader reads the objects through its local cache.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import { engineUrl } from "../../../test/engines.ts";
import {
  addTenant,
  type Bar,
  loadBars,
  openTieringEnv,
  readDailyBars,
  type TieringEnv,
} from "../../../test/fixtures/rtdb-tiering.ts";
import { s3StoreFromUrl } from "../../../test/s3.ts";
import { sharedData } from "../../../test/shared-data.ts";
import { runTiering } from "./pipeline.ts";
import { TieredTableReader } from "./reader.ts";

const s3 = engineUrl("s3");
const market = sharedData("market", "rtdb tiering on S3");
const d = s3 && market ? describe : describe.skip;

const NOW = new Date("2015-01-05T12:00:00Z");
const FULL = { from: "2014-01-01T00:00:00Z", to: "2015-02-01T00:00:00Z" };

d("tiering to S3 (S3Proxy)", () => {
  let dir: string;
  let env: TieringEnv;
  let t: TenantRef;
  let bars: Bar[];
  let store: ReturnType<typeof s3StoreFromUrl>;
  let reader: TieredTableReader;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-tier-s3-"));
    env = await openTieringEnv(dir);
    store = s3StoreFromUrl(s3 as string, `tier-${crypto.randomUUID().slice(0, 8)}`, join(dir, "object-cache"));
    reader = new TieredTableReader({ engine: env.ts.realtime, state: env.state, objects: store });
    t = await addTenant(env, `s3-${crypto.randomUUID().slice(0, 6)}`);
    bars = readDailyBars(join(market as string, "daily", "YHOO_1996-2015_daily.csv"), "2014-11-01", "2015-01-01");
    await loadBars(env.ts.realtime, t, "YHOO", bars);
  });
  afterAll(async () => {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("old partitions land in the bucket under the tenant's namespace; reads span hot and tiered", async () => {
    const before = await env.ts.realtime.partitions(t, "bars");
    const out = await runTiering(env.deps({ now: () => NOW, objects: store }));
    expect(out.failures).toEqual([]);
    const left = await env.ts.realtime.partitions(t, "bars");
    expect(out.parts_tiered).toBe(before.length - left.length);
    expect(out.parts_tiered).toBeGreaterThan(30);
    const ns = lakehouseNamespace(t.slug);
    const keys = await store.list(`${ns}/`);
    expect(keys.length).toBe(out.parts_tiered);
    expect(keys.every((k) => /^svc_tenant_[a-z0-9_]+\/rtdb\/bars\/\d{4}-\d{2}-\d{2}\/part-0\.parquet$/.test(k))).toBe(
      true,
    );
    expect(store.location).toStartWith("s3://");
    expect((await reader.summary(t)).location).toBe(`${store.location}/${ns}/rtdb/`);

    const rows = (await reader.read(t, "bars", FULL)).rows;
    expect(rows.map((r) => r[6])).toEqual(bars.map((b) => b.ts));
    expect(rows.map((r) => r[4])).toEqual(bars.map((b) => b.close));

    // A rerun publishes nothing again.
    const again = await runTiering(env.deps({ now: () => NOW, objects: store }));
    expect(again).toMatchObject({ parts_tiered: 0, failures: [] });
    expect(await store.list(`${ns}/`)).toEqual(keys);
  });
});
