/**
 * The Foundry area: its service (domain/foundry/service.ts) over the control plane, the
 * lab's gateway and the job queue, and the dataset build worker (pipelines/foundry/build/).
 */
import { join } from "node:path";
import { SqlTuningStore } from "../adapters/controlplane/foundry-tuning-store.ts";
import { SqlDatasetStore, SqlModelStore } from "../adapters/controlplane/index.ts";
import { FoundryLabClient } from "../adapters/lakehouse/foundry-client.ts";
import { GatewayLakehouse } from "../adapters/lakehouse/gateway-client.ts";
import { FoundryModels } from "../domain/foundry/models/service.ts";
import { FoundryTuning } from "../domain/foundry/models/tuning.ts";
import { FOUNDRY_BUILD_QUEUE, FoundryService } from "../domain/foundry/service.ts";
import type { JobWorker } from "../domain/ports.ts";
import { type BuildDeps, makeBuildHandler } from "../pipelines/foundry/build/job.ts";
import { RealtimeFeatures } from "../pipelines/foundry/build/realtime.ts";
import { openFoundryQuery } from "./foundry-query.ts";
import { openFoundryReadModels } from "./foundry-readmodels.ts";
import { openFoundryServing } from "./foundry-serving.ts";
import { openFoundryTables } from "./foundry-tables.ts";
import type { FoundryWiring } from "./foundry-wiring.ts";

export type { FoundryWiring };

export function openFoundry(d: FoundryWiring): { service: FoundryService; workers: JobWorker[]; buildDeps: BuildDeps } {
  const datasets = new SqlDatasetStore(d.store.sql);
  const lab =
    d.config.lakehouse && d.lakehouse instanceof GatewayLakehouse
      ? new FoundryLabClient(d.lakehouse, {
          url: d.config.lakehouse.url,
          token: d.config.lakehouse.token,
          buildTimeoutMs: d.config.foundry.buildTimeoutMs,
        })
      : null;
  const readModels = openFoundryReadModels(d);
  // Training runs in the lab worker (queue foundry-train), which writes the winning artifact into
  // the object store itself, under models/<tenant>/<sha256>.joblib: the local directory, or the S3
  // bucket (the lab takes the endpoint and credentials from its own CAIRN_S3_* environment).
  const objects = d.config.objectStore;
  const s3Models =
    objects.kind === "s3" ? `s3://${[objects.bucket, objects.prefix, "models"].filter(Boolean).join("/")}` : "";
  const models = new FoundryModels({
    models: new SqlModelStore(d.store.sql),
    datasets,
    lab,
    queue: d.queue,
    catalog: d.config.foundry.labCatalog,
    artifactDir: (tenantId) =>
      objects.kind === "local" ? join(objects.dir, "models", tenantId) : `${s3Models}/${tenantId}`,
    defaults: d.config.foundry.train,
    // Tuning experiments: the same checks, the same queue (job models.tune), their own table.
    tuning: new FoundryTuning({
      tunings: new SqlTuningStore(d.store.sql),
      datasets,
      lab,
      queue: d.queue,
      catalog: d.config.foundry.labCatalog,
      defaults: d.config.foundry.tune,
    }),
  });
  const serving = openFoundryServing(d, models);
  const service = new FoundryService({
    serving,
    tables: openFoundryTables({ config: d.config, lakehouse: d.lakehouse }),
    readModels: readModels.readModels,
    query: openFoundryQuery({ ...d, readModels: readModels.readModels, lab }),
    models,
    datasets,
    lab,
    queue: d.queue,
    graphRules: d.graphRules,
  });
  const buildDeps: BuildDeps = {
    datasets,
    lab,
    lakehouse: d.lakehouse,
    graph: d.graph,
    graphRules: d.graphRules,
    realtime: d.realtime ? new RealtimeFeatures(d.realtime) : null,
  };
  const handler = makeBuildHandler(buildDeps);
  // Two builds at a time per instance: the work is in the lab; the service only waits.
  const worker = d.queue.work(FOUNDRY_BUILD_QUEUE, handler, { concurrency: 2 });
  // The serving area's background loads stop with the workers at shutdown.
  const servingStop: JobWorker = { close: async () => serving.close() };
  return { service, workers: [worker, ...readModels.workers, servingStop], buildDeps };
}
