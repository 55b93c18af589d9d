/**
 * The sync job against the real lab gateway (Python, PyIceberg + DuckDB): full refresh
 * replaces, incremental upserts past the watermark in batches, a re-run changes nothing,
 * and a lost watermark write is recovered from the snapshot property. Under CI a missing
 * lab venv fails the suite (test/lakehouse.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SyncTarget } from "../../../domain/lakehouse/catalog.ts";
import type { LakehousePort } from "../../../domain/lakehouse/ports.ts";
import type { JobContext, JsonValue, Tenant } from "../../../domain/ports.ts";
import { lakehouseNamespace } from "../../../domain/tenants/namespaces.ts";
import { engineUrl, freshPostgresDatabase } from "../../../test/engines.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { type GatewayHandle, startGateway } from "../../../test/lakehouse.ts";
import { CURSOR_PROPERTY, type LakehouseSyncDeps, makeLakehouseSyncHandler, type SyncOutcome } from "./job.ts";

const gateway: GatewayHandle | undefined = await startGateway();
afterAll(() => gateway?.stop());

/** The same scenarios with the control plane (and the source tables) on SQLite and on Postgres. */
function runSyncSuite(
  profile: "sqlite" | "postgres",
  gw: GatewayHandle,
  makeEnv: () => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>,
) {
  describe(`lakehouse-sync against the lab gateway (${profile})`, () => {
    let cleanup = async () => {};
    let svc: TestService;
    let owner: string;
    let tenant: Tenant;
    let ns: string;
    let lake: LakehousePort;

    beforeAll(async () => {
      const made = await makeEnv();
      cleanup = made.cleanup;
      svc = await startTestService({ ...made.env, CAIRN_LAKEHOUSE_URL: gw.url });
      const lh = svc.service.engines.lakehouse;
      if (!lh) throw new Error("the service should have a lakehouse");
      lake = lh;
      tenant = (await svc.service.store.getTenant(svc.tenantId)) as Tenant;
      ns = lakehouseNamespace(tenant.slug);
      await svc.user("owner@sync.test", "enterprise", ["owner"]);
      owner = await svc.token("owner@sync.test", "enterprise");
      const cat = await api("POST", `/v1/admin/tenants/${svc.tenantId}/catalog`, {
        catalog_uri: "https://catalog.example.com/api/catalog",
        warehouse: "s3://lakehouse/warehouse",
        storage_prefix: ns,
      });
      expect(cat.status).toBe(201);
      const sql = svc.service.store.sql;
      for (const t of ["trades_full", "trades_inc"]) {
        await sql.exec(`CREATE TABLE ci.${t} (id INTEGER NOT NULL PRIMARY KEY, sym TEXT NOT NULL, qty BIGINT,
          px DECIMAL(12,2), traded_at TIMESTAMP, version INTEGER NOT NULL)`);
      }
    }, 60_000);
    afterAll(async () => {
      await svc?.close();
      await cleanup();
    });

    async function api(method: string, path: string, body?: unknown) {
      const res = await svc.request(path, {
        method,
        headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }

    async function insert(table: string, rows: [number, string, number | bigint, number, string, number][]) {
      for (const r of rows) {
        await svc.service.store.sql.run(
          `INSERT INTO ci.${table} (id, sym, qty, px, traded_at, version) VALUES (?, ?, ?, ?, ?, ?)`,
          r,
        );
      }
    }

    async function createTarget(body: Record<string, unknown>): Promise<SyncTarget> {
      const res = await api("POST", "/v1/admin/lakehouse/sync-targets", {
        tenant_id: svc.tenantId,
        source_schema: "ci",
        iceberg_namespace: ns,
        ...body,
      });
      expect(res.status).toBe(201);
      return res.json as unknown as SyncTarget;
    }

    /** Runs through the route and the service's queue worker; resolves with the final target. */
    async function runViaRoute(id: string): Promise<SyncTarget> {
      const run = await api("POST", `/v1/admin/lakehouse/sync-targets/${id}/run`);
      expect(run.status).toBe(202);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const t = (await api("GET", `/v1/admin/lakehouse/sync-targets/${id}`)).json as unknown as SyncTarget;
        if (t.last_job_id === run.json.job_id && (t.last_status === "succeeded" || t.last_status === "failed")) {
          return t;
        }
        if (Date.now() > deadline) throw new Error(`sync ${id} did not finish: ${JSON.stringify(t)}`);
        await Bun.sleep(50);
      }
    }

    /** Runs the handler in-process with small batches, as the worker would. */
    async function runDirect(id: string, over: Partial<LakehouseSyncDeps> = {}): Promise<SyncOutcome> {
      const { store } = svc.service;
      const { logger } = svc.service.deps;
      const { lakehouseCatalogs } = svc.service;
      const handler = makeLakehouseSyncHandler({
        store,
        catalogs: lakehouseCatalogs,
        lakehouse: lake,
        logger,
        ...over,
      });
      const progress: JsonValue[] = [];
      const job: JobContext = {
        id: crypto.randomUUID(),
        name: "sync",
        data: { sync_target_id: id },
        attempt: 1,
        progress: async (p) => void progress.push(p),
      };
      return (await handler(job)) as unknown as SyncOutcome;
    }

    async function lakeRows(table: string): Promise<unknown[][]> {
      const { rows } = await lake.preview(ns, table, 1000);
      return rows.sort((a, b) => Number(a[0]) - Number(b[0]));
    }

    test("full_refresh copies the table, then replaces it (deleted rows vanish)", async () => {
      await insert("trades_full", [
        [1, "AAA", 100, 10.5, "2024-01-02 09:00:00", 1],
        [2, "BBB", 9_007_199_254_740_993n, 20.25, "2024-01-02 09:30:00", 1],
        [3, "CCC", 300, 30, "2024-01-02 10:00:00", 1],
      ]);
      const target = await createTarget({
        source_table: "trades_full",
        iceberg_table: "trades_full",
        sync_mode: "full_refresh",
      });
      const first = await runViaRoute(target.id);
      expect(first).toMatchObject({ last_status: "succeeded", last_error: null });
      expect(first.last_snapshot_id).toMatch(/^\d+$/);
      const int = profile === "sqlite" ? "long" : "int"; // SQLite integers are all 64-bit
      expect((await lake.tableSchema(ns, "trades_full")).map((c) => [c.name, c.type])).toEqual([
        ["id", int],
        ["sym", "string"],
        ["qty", "long"],
        ["px", "decimal(12,2)"],
        ["traded_at", "timestamp"],
        ["version", int],
      ]);
      const rows = await lakeRows("trades_full");
      expect(rows.map((r) => r[0])).toEqual([1, 2, 3]);
      expect(rows[0]?.slice(1, 5)).toEqual(["AAA", 100, "10.50", "2024-01-02T09:00:00"]);
      // A long past 2^53 arrives exactly (read as text, sent as a digit string).
      const big = await lake.sql(ns, "SELECT CAST(qty AS VARCHAR) AS q FROM trades_full WHERE id = 2");
      expect(big.rows).toEqual([["9007199254740993"]]);

      const sql = svc.service.store.sql;
      await sql.run("DELETE FROM ci.trades_full WHERE id = ?", [1]);
      await sql.run("UPDATE ci.trades_full SET px = ? WHERE id = ?", [99.99, 3]);
      await insert("trades_full", [[4, "DDD", 400, 40, "2024-01-02 11:00:00", 1]]);
      const second = await runViaRoute(target.id);
      expect(second.last_status).toBe("succeeded");
      expect(second.last_snapshot_id).not.toBe(first.last_snapshot_id);
      const after = await lakeRows("trades_full");
      expect(after.map((r) => [r[0], r[3]])).toEqual([
        [2, "20.25"],
        [3, "99.99"],
        [4, "40.00"],
      ]);
    }, 60_000);

    test("full_refresh past the per-job row bound fails clearly and records the failure", async () => {
      const target = (await api("GET", "/v1/admin/lakehouse/sync-targets")).json as unknown as SyncTarget[];
      const full = target.find((t) => t.iceberg_table === "trades_full") as SyncTarget;
      await expect(runDirect(full.id, { maxRowsPerJob: 2 })).rejects.toThrow(/more than 2 rows.*incremental/);
      const t = (await api("GET", `/v1/admin/lakehouse/sync-targets/${full.id}`)).json;
      expect(t.last_status).toBe("failed");
      expect(String(t.last_error)).toContain("more than 2 rows");
      expect((await lakeRows("trades_full")).length).toBe(3); // the previous snapshot stands
    }, 30_000);

    test("incremental: batches (ties kept together), upserts past the watermark, re-run is a no-op", async () => {
      await insert("trades_inc", [
        [1, "AAA", 1, 1, "2024-01-02 09:00:00", 1],
        [2, "BBB", 2, 2, "2024-01-02 09:00:00", 1],
        [3, "CCC", 3, 3, "2024-01-02 09:00:00", 2],
        [4, "DDD", 4, 4, "2024-01-02 09:00:00", 2],
        [5, "EEE", 5, 5, "2024-01-02 09:00:00", 2],
        [6, "FFF", 6, 6, "2024-01-02 09:00:00", 10],
      ]);
      const target = await createTarget({
        source_table: "trades_inc",
        iceberg_table: "trades_inc",
        primary_key_cols: ["id"],
        cursor_col: "version",
      });
      const first = await runDirect(target.id, { batchRows: 2 });
      // [1,1] | [2,2 + the tied 2] | [10]: the batch at version 2 grows to keep ties together.
      expect(first).toMatchObject({ mode: "incremental", rows_written: 6, batches: 3, cursor: "10" });
      expect((await lakeRows("trades_inc")).map((r) => r[0])).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await lake.snapshotProperties(ns, "trades_inc"))?.[CURSOR_PROPERTY]).toBe("10");
      const stored = svc.service.lakehouseCatalogs;
      const afterFirst = (await stored.getSyncTarget(target.id)) as SyncTarget;
      expect(afterFirst).toMatchObject({ last_cursor: "10", last_status: "succeeded" });

      const again = await runDirect(target.id, { batchRows: 2 });
      expect(again).toMatchObject({ rows_written: 0, batches: 0, cursor: "10" });
      expect((await stored.getSyncTarget(target.id))?.last_snapshot_id).toBe(afterFirst.last_snapshot_id);
      expect((await lakeRows("trades_inc")).length).toBe(6);

      const sql = svc.service.store.sql;
      await sql.run("UPDATE ci.trades_inc SET px = ?, version = ? WHERE id = ?", [22.5, 11, 2]);
      await sql.run("UPDATE ci.trades_inc SET px = ? WHERE id = ?", [77, 1]); // no version bump: not synced
      await insert("trades_inc", [[7, "GGG", 7, 7, "2024-01-02 10:00:00", 11]]);
      const third = await runDirect(target.id, { batchRows: 2 });
      expect(third).toMatchObject({ rows_written: 2, batches: 1, cursor: "11" });
      const rows = await lakeRows("trades_inc");
      expect(rows.map((r) => [r[0], r[3], r[5]])).toEqual([
        [1, "1.00", 1],
        [2, "22.50", 11],
        [3, "3.00", 2],
        [4, "4.00", 2],
        [5, "5.00", 2],
        [6, "6.00", 10],
        [7, "7.00", 11],
      ]);
    }, 60_000);

    test("a lost watermark write is recovered from the snapshot; a dropped table is rebuilt", async () => {
      const list = (await api("GET", "/v1/admin/lakehouse/sync-targets")).json as unknown as SyncTarget[];
      const inc = list.find((t) => t.iceberg_table === "trades_inc") as SyncTarget;
      const stored = svc.service.lakehouseCatalogs;
      // As if the process died after the Iceberg commit, before sync_targets was updated.
      await stored.updateSyncState(inc.id, { last_cursor: null });
      expect(await runDirect(inc.id)).toMatchObject({ rows_written: 0, cursor: "11" });
      expect((await stored.getSyncTarget(inc.id))?.last_cursor).toBe("11");
      await stored.updateSyncState(inc.id, { last_cursor: "2" });
      expect(await runDirect(inc.id)).toMatchObject({ rows_written: 0, cursor: "11" });

      await lake.dropNamespace({ tenantId: tenant.tenant_id, slug: tenant.slug });
      const rebuilt = await runViaRoute(inc.id);
      expect(rebuilt).toMatchObject({ last_status: "succeeded", last_cursor: "11" });
      expect((await lakeRows("trades_inc")).map((r) => r[0])).toEqual([1, 2, 3, 4, 5, 6, 7]);
      // The full-refresh table went with the namespace; its next run recreates it.
      const full = list.find((t) => t.iceberg_table === "trades_full") as SyncTarget;
      expect((await runViaRoute(full.id)).last_status).toBe("succeeded");
      expect((await lakeRows("trades_full")).length).toBe(3);
    }, 60_000);

    test("a second run request while one is queued or running returns that run", async () => {
      const list = (await api("GET", "/v1/admin/lakehouse/sync-targets")).json as unknown as SyncTarget[];
      const inc = list.find((t) => t.iceberg_table === "trades_inc") as SyncTarget;
      const first = await api("POST", `/v1/admin/lakehouse/sync-targets/${inc.id}/run`);
      const second = await api("POST", `/v1/admin/lakehouse/sync-targets/${inc.id}/run`);
      expect(first.status).toBe(202);
      expect(second.status).toBe(202);
      expect(second.json.job_id).toBe(first.json.job_id);
      const done = await svc.service.queue.getJob("lakehouse-sync", String(first.json.job_id));
      const deadline = Date.now() + 30_000;
      let status = done?.status;
      while (status !== "completed" && status !== "failed" && Date.now() < deadline) {
        await Bun.sleep(50);
        status = (await svc.service.queue.getJob("lakehouse-sync", String(first.json.job_id)))?.status;
      }
      expect(status).toBe("completed");
    }, 60_000);

    test("a missing source table fails the run with the reason on the target", async () => {
      await svc.service.store.sql.exec("CREATE TABLE ci.gone (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
      const target = await createTarget({
        source_table: "gone",
        iceberg_table: "gone",
        primary_key_cols: ["id"],
        cursor_col: "v",
      });
      await svc.service.store.sql.exec("DROP TABLE ci.gone");
      await expect(runDirect(target.id)).rejects.toThrow("Source table ci.gone does not exist");
      const t = (await api("GET", `/v1/admin/lakehouse/sync-targets/${target.id}`)).json;
      expect(t).toMatchObject({ last_status: "failed", last_error: "Source table ci.gone does not exist" });
    }, 30_000);
  });
}

if (gateway) {
  runSyncSuite("sqlite", gateway, async () => ({ env: {}, cleanup: async () => {} }));
  const pg = engineUrl("postgres");
  if (pg) {
    runSyncSuite("postgres", gateway, async () => {
      const db = await freshPostgresDatabase(pg);
      return { env: { DATABASE_URL: db.url }, cleanup: db.drop };
    });
  }
}
