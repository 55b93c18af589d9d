/**
 * The lakehouse area's service (domain/lakehouse/service.ts) over the control plane, the job
 * queue, the gateway (null when CAIRN_LAKEHOUSE_URL is unset) and the sync pipeline's
 * reading of source tables.
 */
import type { LakehouseCatalogStore, LakehousePort } from "../domain/lakehouse/ports.ts";
import { LakehouseService } from "../domain/lakehouse/service.ts";
import type { ControlPlaneStore, JobQueue } from "../domain/ports.ts";
import type { SecretBox } from "../domain/secret-box.ts";
import { describeSourceTable, isCursorType } from "../pipelines/lakehouse/sync/index.ts";

export function openLakehouseService(d: {
  store: ControlPlaneStore;
  queue: JobQueue;
  gateway: LakehousePort | null;
  catalogs: LakehouseCatalogStore;
  secretBox: SecretBox;
}): LakehouseService {
  return new LakehouseService({
    catalogs: d.catalogs,
    gateway: d.gateway,
    tenants: d.store,
    secrets: d.secretBox,
    queue: d.queue,
    sources: { describe: (schema, table) => describeSourceTable(d.store.sql, schema, table), isCursorType },
  });
}
