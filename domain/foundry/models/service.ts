/**
 * Model training (spec 2.8, 4.9; issue 16): POST /v1/foundry/models/train checks the request
 * against the dataset's table, stores a queued record and enqueues `models.train` on the
 * "foundry-train" queue, which the Python lab worker consumes (lab/src/lab/models/run.py).
 * The lab writes progress and the result into the job; the service reads the job whenever
 * a model is read and keeps the outcome in its record (completed -> ready, failed -> failed).
 * Nothing trains in this process.
 */
import { AppError } from "../../errors.ts";
import type { JsonValue } from "../../ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../tenants/namespaces.ts";
import type { DatasetStore, FoundryLabPort } from "../ports.ts";
import { checkTrainingInput, readyDataset } from "./checks.ts";
import { FOUNDRY_TRAIN_QUEUE, labJobPatch, TRAIN_ATTEMPTS, TRAIN_JOB } from "./lab-job.ts";
import {
  isJsonObject,
  type ModelRecord,
  type ModelStatus,
  modelSummary,
  modelView,
  objects,
  type TrainRequest,
} from "./model.ts";
import type { LabCatalog, ModelPatch, ModelStore, TrainDefaults, TrainQueue } from "./ports.ts";
import { checkSeriesRequest } from "./series-checks.ts";
import type { FoundryTuning } from "./tuning.ts";

/** SHAP values a caller gets (spec 2.8: the top 20 features). */
export const SHAP_TOP = 20;

export interface FoundryModelsDeps {
  models: ModelStore;
  datasets: Pick<DatasetStore, "getDataset">;
  /** The dataset table's columns; null without a lakehouse. */
  lab: Pick<FoundryLabPort, "schemas" | "checkTraining"> | null;
  queue: TrainQueue;
  /** The catalog the lab opens; null when CAIRN_LAKEHOUSE_CATALOG_URI/WAREHOUSE are unset. */
  catalog: LabCatalog | null;
  /**
   * Where the lab writes the tenant's artifacts: a folder of the local object store or an
   * `s3://bucket/prefix/models/<tenant>` URL; null = the bytes come back in the job result.
   */
  artifactDir: ((tenantId: string) => string) | null;
  defaults: TrainDefaults;
  /** Tuning experiments (tuning.ts), for `tuning_id` and GET /models/{id}/tune; absent: no tuning. */
  tuning?: FoundryTuning;
}

const ACTIVE: ModelStatus[] = ["queued", "training"];

export class FoundryModels {
  constructor(private readonly deps: FoundryModelsDeps) {}

  /** Tuning experiments (POST /models/tune, GET /models/{id}/tune), beside the runs they feed. */
  tuningOf(): FoundryTuning {
    if (!this.deps.tuning) throw new AppError("unavailable", "Tuning is not configured in this installation");
    return this.deps.tuning;
  }

  /** POST /v1/foundry/models/train: every check before the job is queued; answers at once. */
  async train(t: TenantRef, req: TrainRequest) {
    const ds = await readyDataset(this.deps, t, req.dataset_id);
    const problem = req.problem_type ?? null;
    const label = req.label_column ?? null;
    const series = problem === "timeseries" || problem === "anomaly" || label !== null;
    // Time-series and anomaly checks from the column types (series-checks.ts): a timeseries run
    // is queued with its time column resolved as feature_columns[0].
    const columns =
      series && this.deps.lab ? (await this.deps.lab.schemas(lakehouseNamespace(t.slug)))[ds.output_table] : undefined;
    const requested = columns ? { ...req, feature_columns: checkSeriesRequest(columns, req, problem, ds.name) } : req;
    const { namespace, catalog, features } = await checkTrainingInput(this.deps, t, requested, problem, ds);
    // A tuning experiment named in the request hands its best hyperparameters per family to the lab.
    const tuned = req.tuning_id
      ? await this.tuningOf().paramsFor(t, req.tuning_id, {
          dataset_id: ds.id,
          target_column: req.target_column,
          problem_type: problem === "auto" ? null : problem,
        })
      : null;

    const id = crypto.randomUUID();
    const record = await this.deps.models.createModel({
      id,
      tenant_id: t.tenantId,
      name: req.name.trim(),
      dataset_id: ds.id,
      table_name: ds.output_table,
      target_column: req.target_column,
      feature_columns: [...new Set(features)],
      problem_type: problem === "auto" ? null : problem,
      job_id: id,
      tuning_id: tuned?.id ?? null,
      tuned_params: tuned?.params ?? null,
    });
    const options: Record<string, JsonValue> = {};
    if (tuned) options.params = tuned.params;
    if (this.deps.defaults.algorithms) options.algorithms = this.deps.defaults.algorithms;
    if (this.deps.defaults.timeoutS) options.timeout_s = this.deps.defaults.timeoutS;
    const data: Record<string, JsonValue> = {
      catalog_uri: catalog.catalogUri,
      warehouse: catalog.warehouse,
      namespace,
      table: ds.output_table,
      target_column: req.target_column,
      options,
      // Carried for the operator and the lab's logs; the lab reads only the keys above.
      tenant_id: t.tenantId,
      model_id: id,
    };
    if (record.feature_columns.length) data.feature_columns = record.feature_columns;
    if (record.problem_type) data.problem_type = record.problem_type;
    if (label !== null) data.label_column = label;
    if (this.deps.artifactDir) data.artifact_dir = this.deps.artifactDir(t.tenantId);
    try {
      // Two attempts: a lab worker that dies mid-run loses its lease, and the next worker to
      // start runs the competition again from the start (a resumed run); a second loss fails
      // the job with the queue's "lease expired" reason, which the record then carries.
      await this.deps.queue.enqueue(FOUNDRY_TRAIN_QUEUE, TRAIN_JOB, data, { jobId: id, attempts: TRAIN_ATTEMPTS });
    } catch (err) {
      await this.deps.models.updateModel(t.tenantId, id, {
        status: "failed",
        error: `The training run could not be queued: ${(err as Error).message}`,
        finished_at: new Date().toISOString(),
      });
      throw err;
    }
    return { id, name: record.name, status: "queued" as const };
  }

  async list(t: TenantRef) {
    const all = await this.deps.models.listModels(t.tenantId);
    const synced = await Promise.all(all.map((m) => (ACTIVE.includes(m.status) ? this.sync(m) : m)));
    return synced.map(modelSummary);
  }

  async get(t: TenantRef, id: string) {
    return modelView(await this.record(t, id));
  }

  /** GET .../shap: the winner's mean |SHAP| of the top 20 features (409 before ready). */
  async shap(t: TenantRef, id: string) {
    const m = await this.record(t, id);
    if (m.status !== "ready") {
      throw new AppError("conflict", `Model '${m.name}' is ${m.status}: SHAP values exist once it is ready`);
    }
    const r = m.result ?? {};
    const shap = isJsonObject(r.shap) ? r.shap : {};
    const winner = isJsonObject(r.winner) ? r.winner : {};
    const values = objects(shap.values);
    return {
      id: m.id,
      algorithm: typeof winner.algorithm === "string" ? winner.algorithm : null,
      status: typeof shap.status === "string" ? shap.status : null,
      explainer: typeof shap.explainer === "string" ? shap.explainer : null,
      rows: typeof shap.rows === "number" ? shap.rows : null,
      reason: typeof shap.reason === "string" ? shap.reason : null,
      values: values.slice(0, SHAP_TOP),
    };
  }

  /** The tenant's record, its status brought up to date from the job. */
  private async record(t: TenantRef, id: string): Promise<ModelRecord> {
    const m = await this.deps.models.getModel(t.tenantId, id);
    if (!m) throw new AppError("not_found", `No model '${id}'`);
    return ACTIVE.includes(m.status) ? this.sync(m) : m;
  }

  /** Reads the job and stores what it says; a record another reader already finished stays as is. */
  private async sync(m: ModelRecord): Promise<ModelRecord> {
    const job = await this.deps.queue.getJob(FOUNDRY_TRAIN_QUEUE, m.job_id);
    const outcome = labJobPatch(job, m, "training", "training");
    if (!outcome) return m;
    const patch: ModelPatch = outcome;
    if (outcome.result !== undefined) {
      const artifact = outcome.result && isJsonObject(outcome.result.artifact) ? outcome.result.artifact : null;
      patch.artifact_sha256 = typeof artifact?.sha256 === "string" ? artifact.sha256 : null;
      patch.artifact_path = typeof artifact?.path === "string" ? artifact.path : null;
    }
    return (
      (await this.deps.models.updateModel(m.tenant_id, m.id, patch, ACTIVE)) ??
      ((await this.deps.models.getModel(m.tenant_id, m.id)) as ModelRecord)
    );
  }
}
