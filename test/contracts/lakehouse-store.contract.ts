/** Contract suite for LakehouseCatalogStore: runs unchanged on SQLite and Postgres. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LAKEHOUSE_MIGRATIONS, SqlLakehouseCatalogStore } from "../../adapters/controlplane/index.ts";
import type { CatalogUpsert, NewSyncTarget } from "../../domain/lakehouse/catalog.ts";
import type { LakehouseCatalogStore } from "../../domain/lakehouse/ports.ts";
import type { ControlPlaneStore, Tenant } from "../../domain/ports.ts";

export function runLakehouseStoreContract(
  name: string,
  make: () => Promise<{ store: ControlPlaneStore; cleanup: () => Promise<void> }>,
): void {
  describe(`LakehouseCatalogStore contract: ${name}`, () => {
    let cp: ControlPlaneStore;
    let store: LakehouseCatalogStore;
    let cleanup: () => Promise<void>;
    let t1: Tenant;
    let t2: Tenant;

    beforeAll(async () => {
      ({ store: cp, cleanup } = await make());
      await cp.migrate(LAKEHOUSE_MIGRATIONS);
      await cp.migrate(LAKEHOUSE_MIGRATIONS);
      store = new SqlLakehouseCatalogStore(cp.sql);
      t1 = await cp.createTenant({ slug: "lake-one", display_name: "One", tier: "pilot", region: "eu" });
      t2 = await cp.createTenant({ slug: "lake-two", display_name: "Two", tier: "pilot", region: "eu" });
    });
    afterAll(async () => {
      await cp.close();
      await cleanup();
    });

    const catalog = (tenant: Tenant, over: Partial<CatalogUpsert> = {}): CatalogUpsert => ({
      tenant_id: tenant.tenant_id,
      catalog_name: "svc-lakehouse",
      catalog_type: "rest",
      catalog_uri: "http://catalog.local/v1",
      warehouse: "s3://bucket/warehouse",
      storage_prefix: "tenants/one",
      s3_endpoint: null,
      s3_access_key_id: "AKIA1",
      s3_secret_key_enc: "v1.k1.aaa.bbb.ccc",
      key_id: "k1",
      metadata: { owner: "data", nested: { a: [1, 2] } },
      ...over,
    });

    test("upsert creates, then updates in place (same id and provisioned_at)", async () => {
      const a = await store.upsertCatalog(catalog(t1));
      expect(a).toMatchObject({ tenant_slug: "lake-one", is_active: true, metadata: { nested: { a: [1, 2] } } });
      expect(new Date(a.provisioned_at).toISOString()).toBe(a.provisioned_at);
      await Bun.sleep(2);
      const b = await store.upsertCatalog(
        catalog(t1, { warehouse: "s3://bucket/moved", s3_secret_key_enc: "v1.k2.x.y.z", key_id: "k2" }),
      );
      expect(b.id).toBe(a.id);
      expect(b.provisioned_at).toBe(a.provisioned_at);
      expect(b.updated_at > a.updated_at).toBe(true);
      expect(b).toMatchObject({ warehouse: "s3://bucket/moved", s3_secret_key_enc: "v1.k2.x.y.z", key_id: "k2" });
      expect(await store.getCatalog(t1.tenant_id, "svc-lakehouse")).toEqual(b);
    });

    test("one active catalog per tenant; list is newest first and filters by tenant", async () => {
      await Bun.sleep(2);
      const other = await store.upsertCatalog(catalog(t1, { catalog_name: "second", s3_secret_key_enc: null }));
      expect((await store.getActiveCatalog(t1.tenant_id))?.id).toBe(other.id);
      expect((await store.getCatalog(t1.tenant_id, "svc-lakehouse"))?.is_active).toBe(false);
      await Bun.sleep(2);
      await store.upsertCatalog(catalog(t2));
      const mine = await store.listCatalogs(t1.tenant_id);
      expect(mine.map((c) => c.catalog_name)).toEqual(["second", "svc-lakehouse"]);
      const all = await store.listCatalogs();
      expect(all[0]?.tenant_slug).toBe("lake-two");
      expect(all.length).toBeGreaterThanOrEqual(3);
      expect(await store.getActiveCatalog(crypto.randomUUID())).toBeNull();
      // Re-provisioning the first catalog makes it active again.
      await store.upsertCatalog(catalog(t1));
      expect((await store.getActiveCatalog(t1.tenant_id))?.catalog_name).toBe("svc-lakehouse");
    });

    test("ensureCatalog inserts once and never overwrites or demotes", async () => {
      const t3 = await cp.createTenant({ slug: "lake-three", display_name: "Three", tier: "pilot", region: "eu" });
      const first = await store.ensureCatalog(catalog(t3, { s3_secret_key_enc: null, key_id: null }));
      expect(first.is_active).toBe(true);
      const again = await store.ensureCatalog(catalog(t3, { warehouse: "s3://other/x" }));
      expect(again).toEqual(first);
      const extra = await store.ensureCatalog(catalog(t3, { catalog_name: "extra", s3_secret_key_enc: null }));
      expect(extra.is_active).toBe(false);
      expect((await store.getActiveCatalog(t3.tenant_id))?.id).toBe(first.id);
    });

    test("rotateCatalogSecrets rewrites only stale ciphertexts, passing the row's context", async () => {
      const contexts: string[] = [];
      const n = await store.rotateCatalogSecrets(
        (ct) => !ct.startsWith("v1.k9."),
        (ct, ctx) => {
          contexts.push(ctx);
          return { ciphertext: `v1.k9.${ct.length}.r.r`, keyId: "k9" };
        },
      );
      expect(n).toBe(2); // t1 svc-lakehouse and t2 svc-lakehouse; "second" has no secret
      expect(contexts.sort()).toEqual(
        [`catalog:${t1.tenant_id}:svc-lakehouse`, `catalog:${t2.tenant_id}:svc-lakehouse`].sort(),
      );
      expect((await store.getCatalog(t1.tenant_id, "svc-lakehouse"))?.key_id).toBe("k9");
      expect(
        await store.rotateCatalogSecrets(
          (ct) => !ct.startsWith("v1.k9."),
          () => ({ ciphertext: "", keyId: "" }),
        ),
      ).toBe(0);
    });

    const target = (tenant: Tenant, over: Partial<NewSyncTarget> = {}): NewSyncTarget => ({
      tenant_id: tenant.tenant_id,
      catalog_name: "svc-lakehouse",
      source_schema: "ci",
      source_table: "companies",
      iceberg_namespace: "svc_tenant_lake_one",
      iceberg_table: "companies",
      sync_mode: "incremental",
      primary_key_cols: ["cik", "fy"],
      cursor_col: "updated_at",
      sync_connector_id: null,
      metadata: { note: "x" },
      ...over,
    });

    test("sync targets: create, read, list per tenant, duplicate destination is a conflict", async () => {
      const s = await store.createSyncTarget(target(t1));
      expect(s).toMatchObject({
        tenant_slug: "lake-one",
        primary_key_cols: ["cik", "fy"],
        metadata: { note: "x" },
        last_cursor: null,
        last_status: null,
      });
      expect(await store.getSyncTarget(s.id)).toEqual(s);
      await expect(store.createSyncTarget(target(t1, { source_table: "other" }))).rejects.toMatchObject({
        code: "conflict",
      });
      await Bun.sleep(2); // list order is by created_at (millisecond text)
      const s2 = await store.createSyncTarget(
        target(t1, { iceberg_table: "companies_full", sync_mode: "full_refresh" }),
      );
      await store.createSyncTarget(target(t2, { iceberg_namespace: "svc_tenant_lake_two" }));
      expect((await store.listSyncTargets(t1.tenant_id)).map((x) => x.id)).toEqual([s.id, s2.id]);
      expect((await store.listSyncTargets()).length).toBe(3);
      expect(await store.getSyncTarget(crypto.randomUUID())).toBeNull();
    });

    test("updateSyncState writes only the given fields; null clears", async () => {
      const s = await store.createSyncTarget(target(t2, { iceberg_table: "state" }));
      const u = await store.updateSyncState(s.id, {
        last_cursor: "42",
        last_snapshot_id: "7283646172635411234",
        last_status: "failed",
        last_error: "boom",
      });
      expect(u).toMatchObject({ last_cursor: "42", last_snapshot_id: "7283646172635411234", last_error: "boom" });
      const v = await store.updateSyncState(s.id, { last_status: "succeeded", last_error: null });
      expect(v).toMatchObject({ last_cursor: "42", last_status: "succeeded", last_error: null });
      await expect(store.updateSyncState(crypto.randomUUID(), { last_error: null })).rejects.toMatchObject({
        code: "not_found",
      });
    });

    test("source schemas resolve as <schema>.<table>", async () => {
      for (const schema of ["ci", "dm", "pm", "md"]) {
        await cp.sql.exec(`CREATE TABLE ${schema}.probe_${schema} (id INTEGER PRIMARY KEY, v TEXT)`);
        await cp.sql.run(`INSERT INTO ${schema}.probe_${schema} (id, v) VALUES (?, ?)`, [1, schema]);
        expect(await cp.sql.get(`SELECT v FROM ${schema}.probe_${schema}`)).toEqual({ v: schema });
      }
    });
  });
}
