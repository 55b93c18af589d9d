/**
 * Background work of the composition root: real-time tiering to the lakehouse (its reader
 * and scheduler) and the job-queue workers of every pipeline.
 */
import { join } from "node:path";
import type { Logger } from "pino";
import type { TenantDirectory } from "../actors/index.ts";
import type { SqlLakehouseCatalogStore } from "../adapters/controlplane/index.ts";
import { SqlTieringStateStore } from "../adapters/controlplane/index.ts";
import { DuckDbParquetInspector } from "../adapters/objectstore/index.ts";
import type { Config } from "../config.ts";
import type { FinancialsStore } from "../domain/financials/ports.ts";
import { defaultCatalogWriter } from "../domain/lakehouse/default-catalog.ts";
import type { LakehousePort } from "../domain/lakehouse/ports.ts";
import { LAKEHOUSE_SYNC_QUEUE } from "../domain/lakehouse/sync-job.ts";
import type { ControlPlaneStore, JobQueue, JobWorker } from "../domain/ports.ts";
import { NO_REALTIME_TABLES } from "../domain/rtdb/index.ts";
import { makeSecIngestHandler, SEC_INGEST_QUEUE, SecClient } from "../pipelines/financials/sec/index.ts";
import { makeLakehouseSyncHandler } from "../pipelines/lakehouse/sync/index.ts";
import { RTDB_TIERING_QUEUE } from "../pipelines/rtdb/tiering/pipeline.ts";
import { TieredTableReader } from "../pipelines/rtdb/tiering/reader.ts";
import { makeTieringHandler, TieringScheduler } from "../pipelines/rtdb/tiering/schedule.ts";
import type { FaultInjector, ProvisioningEngines, SecretSealer } from "../pipelines/tenants/provisioning/index.ts";
import { startProvisioningWorker } from "../pipelines/tenants/provisioning/index.ts";
import { openObjectStore, realtimeEngine } from "./engines.ts";

/** Real-time tables (spec 4.8) and their tiering to the lakehouse (docs/tiering.md). */
export function openTiering(
  config: Config,
  store: ControlPlaneStore,
  queue: JobQueue,
  engines: ProvisioningEngines,
  logger: Logger,
) {
  // Both time-series engines have real-time tables; any other engine answers 503.
  const realtimeTables = realtimeEngine(engines.timeseries) ?? NO_REALTIME_TABLES;
  const state = new SqlTieringStateStore(store.sql);
  const objects = openObjectStore(config);
  const parquet = new DuckDbParquetInspector();
  const view = new TieredTableReader({ engine: realtimeEngine(engines.timeseries), state, objects });
  const scheduler =
    config.tiering.intervalMs > 0
      ? new TieringScheduler(queue, { intervalMs: config.tiering.intervalMs, logger })
      : null;
  return { realtimeTables, state, objects, parquet, view, scheduler };
}

export interface WorkerDeps {
  config: Config;
  store: ControlPlaneStore;
  queue: JobQueue;
  engines: ProvisioningEngines;
  tenants: TenantDirectory;
  lakehouse: LakehousePort | null;
  lakehouseCatalogs: SqlLakehouseCatalogStore;
  sealer: SecretSealer;
  faults: FaultInjector;
  financials: FinancialsStore;
  tiering: ReturnType<typeof openTiering>;
  logger: Logger;
}

/** Starts the workers of provisioning, lakehouse sync, tiering and SEC ingest. */
export function startWorkers(d: WorkerDeps): JobWorker[] {
  const { config, store, queue, logger } = d;
  return [
    startProvisioningWorker(queue, {
      store,
      engines: d.engines,
      catalogs: defaultCatalogWriter(d.lakehouseCatalogs),
      lakehouseUrl: config.lakehouse?.url ?? null,
      sealer: d.sealer,
      publishRouting: (tenantId) => d.tenants.invalidate(tenantId),
      faults: d.faults,
      logger,
    }),
    queue.work(
      LAKEHOUSE_SYNC_QUEUE,
      makeLakehouseSyncHandler({ store, catalogs: d.lakehouseCatalogs, lakehouse: d.lakehouse, logger }),
      // One sync at a time per instance: each holds up to a full batch of rows in memory.
      { concurrency: 1 },
    ),
    queue.work(
      RTDB_TIERING_QUEUE,
      makeTieringHandler({
        store,
        tables: d.tiering.realtimeTables,
        state: d.tiering.state,
        objects: d.tiering.objects,
        parquet: d.tiering.parquet,
        stagingDir: join(config.dataDir, "tiering-staging"),
        logger,
      }),
      // One run at a time per instance; the job id per interval makes it one per installation.
      { concurrency: 1 },
    ),
    queue.work(
      SEC_INGEST_QUEUE,
      makeSecIngestHandler({
        store: d.financials,
        client: config.sec.online
          ? new SecClient({
              userAgent: config.sec.userAgent ?? "",
              baseUrl: config.sec.baseUrl,
              tickersUrl: config.sec.tickersUrl,
              maxRequestsPerSecond: config.sec.maxRequestsPerSecond,
            })
          : null,
        marketDir: config.sec.marketDataDir,
        logger,
      }),
      // One ingest at a time: each derives whole companies in memory.
      { concurrency: 1 },
    ),
  ];
}
