/**
 * What provisioning step 5 needs (pipelines/tenants/provisioning DefaultCatalogWriter): the tenant's
 * `svc-lakehouse` catalog pointing at the configured gateway, created once and never
 * overwritten, so an owner's later POST /catalog settings survive a provisioning resume.
 */
import { DEFAULT_CATALOG_NAME } from "./catalog.ts";
import type { LakehouseCatalogStore } from "./ports.ts";

export function defaultCatalogWriter(catalogs: LakehouseCatalogStore) {
  return {
    async ensureDefaultCatalog(
      tenant: { tenant_id: string },
      target: { catalogUri: string; warehouse: string; storagePrefix: string },
    ): Promise<void> {
      await catalogs.ensureCatalog({
        tenant_id: tenant.tenant_id,
        catalog_name: DEFAULT_CATALOG_NAME,
        catalog_type: "rest",
        catalog_uri: target.catalogUri,
        warehouse: target.warehouse,
        storage_prefix: target.storagePrefix,
        s3_endpoint: null,
        s3_access_key_id: null,
        s3_secret_key_enc: null,
        key_id: null,
        metadata: { provisioned_by: "tenant_pipeline" },
      });
    },
  };
}
