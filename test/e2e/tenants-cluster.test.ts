/**
 * The tenant lifecycle on the cluster profile: two service instances sharing Postgres,
 * Redis (BullMQ jobs, counters, routing invalidation) and the lakehouse gateway on Spark.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteDocumentIndex } from "../../adapters/docindex/index.ts";
import { LadybugGraph } from "../../adapters/graph/index.ts";
import { DuckDbTimeSeries } from "../../adapters/rtdb/index.ts";
import type { ServiceOptions } from "../../main.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { deleteRedisPrefix } from "../redis.ts";
import { waitFor } from "../wait.ts";

const pg = engineUrl("postgres");
const redis = engineUrl("redis");

if (pg && redis) {
  describe("tenant lifecycle across two instances (Postgres + Redis)", () => {
    let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
    let gateway: GatewayHandle | undefined;
    let a: TestService;
    let b: TestService;
    const prefix = `cairn-t${crypto.randomUUID().slice(0, 8)}`;
    let headers: Record<string, string>;
    let engineDir: string;
    let shared: ServiceOptions["sharedEngines"];

    beforeAll(async () => {
      db = await freshPostgresDatabase(pg);
      // The at-scale lakehouse path: /sql answered by Spark SQL over the shared Iceberg catalog.
      gateway = await startGateway({ engine: "spark" });
      const env = {
        DATABASE_URL: db.url,
        REDIS_URL: redis,
        CAIRN_REDIS_PREFIX: prefix,
        CAIRN_TEST_FAULTS: "1",
        ...(gateway ? { CAIRN_LAKEHOUSE_URL: gateway.url } : {}),
      };
      // One set of engine stores shared by both instances, as a cluster shares its servers.
      engineDir = mkdtempSync(join(tmpdir(), "cairn-engines-"));
      shared = {
        documentIndex: new SqliteDocumentIndex({ dataDir: engineDir }),
        timeseries: new DuckDbTimeSeries({ dataDir: engineDir }),
        graph: new LadybugGraph({ dataDir: engineDir }),
      };
      a = await startTestService(env, { sharedEngines: shared });
      b = await startTestService(env, { sharedEngines: shared });
      headers = { "x-api-key": a.service.secrets.adminApiKey, "content-type": "application/json" };
    }, 90_000);
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await gateway?.stop();
      for (const e of Object.values(shared ?? {})) await e.close();
      rmSync(engineDir, { recursive: true, force: true });
      await db?.drop();
      await deleteRedisPrefix(redis, `${prefix}:`);
    });

    const status = async (svc: TestService, slug: string) =>
      (await (await svc.request(`/v1/admin/tenants/${slug}/status`, { headers })).json()) as {
        provisioning_state: string;
        failed_steps: string[];
        completed_steps: string[];
        tenant_id: string;
      };
    const settle = async (svc: TestService, slug: string) => {
      await waitFor(`${slug} to settle`, async () => (await status(svc, slug)).provisioning_state !== "provisioning", {
        timeoutMs: 30_000,
        everyMs: 25,
      });
      return status(svc, slug);
    };
    const create = (svc: TestService, slug: string) =>
      svc.request("/v1/admin/tenants", {
        method: "POST",
        headers,
        body: JSON.stringify({ slug, display_name: slug, tier: "enterprise_plus", region: "eu-central-1" }),
      });

    test("create on A, observe on B; fail at a step, resume, deactivate on A refuses on B at once", async () => {
      expect((await create(a, "cluster-co")).status).toBe(202);
      const st = await settle(b, "cluster-co");
      expect(st.provisioning_state).toBe("active");
      expect(st.completed_steps).toHaveLength(9);

      // The tenant's lakehouse namespace exists and Spark SQL reads what was written to it.
      const lake = b.service.engines.lakehouse;
      if (lake) {
        const ns = lake.namespaceOf({ tenantId: st.tenant_id, slug: "cluster-co" });
        expect(ns).toBe("svc_tenant_cluster_co");
        await lake.write(ns, "deals", {
          mode: "overwrite",
          columns: [
            { name: "id", type: "long" },
            { name: "name", type: "string" },
          ],
          rows: [
            [1, "Alpha"],
            [2, "Beta"],
          ],
        });
        const out = await lake.sql(ns, "SELECT name FROM deals WHERE id = 2");
        expect(out.rows).toEqual([["Beta"]]);
        expect(await lake.health()).toMatchObject({ status: "ok", engine: "spark" });
      }

      // Failure and resume through the Redis queue (either instance may run the job).
      for (const svc of [a, b]) svc.service.faults.set("step_5", "fail");
      expect((await create(a, "cluster-flaky")).status).toBe(202);
      const failed = await settle(b, "cluster-flaky");
      expect(failed.provisioning_state).toBe("failed");
      expect(failed.failed_steps).toEqual(["step_5"]);
      for (const svc of [a, b]) svc.service.faults.clear();
      expect((await create(b, "cluster-flaky")).status).toBe(202);
      expect((await settle(a, "cluster-flaky")).provisioning_state).toBe("active");

      // A user of the tenant works on B (B now caches the route) ...
      const user = await a.service.store.createUser({
        tenant_id: st.tenant_id,
        email: "analyst@cluster-co.test",
        name: "Analyst",
        tier: "pro",
      });
      const token = await b.token(user.email);
      const me = () => b.request("/v1/user/me", { headers: { authorization: `Bearer ${token}` } });
      expect((await me()).status).toBe(200);
      // ... until A deactivates the tenant: B refuses the very next request.
      expect((await a.request("/v1/admin/tenants/cluster-co", { method: "DELETE", headers })).status).toBe(204);
      expect((await me()).status).toBe(403);
      expect((await status(b, "cluster-co")).provisioning_state).toBe("deprovisioned");
    }, 90_000);
  });
}
