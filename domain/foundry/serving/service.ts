/**
 * Serving trained models (spec 2.8, 3.4, 4.9; issue 17; docs/foundry-serving.md): deploy a
 * ready run under a tenant-unique name (registry row `deploying`; the load runs in the
 * background on a bounded queue, then `active`), predict through the inference server
 * (MLServer, OIP v2; never on this event loop), the decision threshold, drift against the
 * training baseline and the plain-English explanation. Routes and the agents call this.
 */
import type { Logger } from "pino";
import { AppError } from "../../errors.ts";
import type { ChatModel } from "../../llm.ts";
import type { JsonValue } from "../../ports.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import { FAST_PROBLEM_TYPES, type FastScorer, fastModelOf, fastPredictions } from "./fast-path.ts";
import { type DeploymentLoader, deploymentManifest } from "./loader.ts";
import {
  type Deployment,
  deploymentView,
  MODEL_NAME_RE,
  type Prediction,
  type PredictResult,
  servedName,
  type ThresholdMetric,
} from "./model.ts";
import type { DeploymentStore, InferencePort } from "./ports.ts";
import {
  checkRows,
  forecastFrom,
  inferInputs,
  MAX_HORIZON,
  MAX_PREDICT_ROWS,
  predictionsFrom,
  type ServingSchema,
  servingSchema,
} from "./predict.ts";
import { PredictionLogWriter } from "./prediction-log.ts";
import { bestThreshold } from "./threshold.ts";
import { driftReport, explainModel } from "./views.ts";

/** Log entries kept per deployment (the drift window is the newest 500 of them). */
export const PREDICTION_LOG_KEEP = 5000;
/** Log entries waiting for the database before a predict waits too (prediction-log.ts). */
const PREDICTION_LOG_PENDING = 20_000;
/** Milliseconds between a predict's answer and its log write (requests within it share one). */
const PREDICTION_LOG_DELAY_MS = 20;
/** Seconds a caller waits before retrying a predict on a deploying model. */
export const RETRY_AFTER_S = 1;

/** The parts of a model run serving reads (FoundryModels.get: the run brought up to date). */
export interface ModelRunView {
  id: string;
  name: string;
  status: string;
  target_column: string;
  artifact: { sha256: string; path: string | null } | null;
  metrics: Record<string, JsonValue> | null;
  result: Record<string, JsonValue> | null;
}

export interface FoundryServingDeps {
  /** 404 for another tenant's or an unknown model (FoundryModels.get). */
  models: { get(t: TenantRef, id: string): Promise<ModelRunView> };
  store: DeploymentStore;
  /** Null: no inference server configured (deploy and predict answer 503). */
  inference: InferencePort | null;
  loader: DeploymentLoader | null;
  /**
   * The ONNX fast path (docs/foundry-onnx.md): classifiers and regressors whose run has a
   * converted graph are scored in the service; null (CAIRN_FOUNDRY_FAST_PATH=off): always OIP.
   */
  fast: FastScorer | null;
  llm: ChatModel | null;
  logger: Logger;
}

export class FoundryServing {
  /** Run results by model id (immutable once ready): features, kinds, classes, baselines. */
  private readonly runs = new Map<string, Record<string, JsonValue>>();
  private readonly predictionLog: PredictionLogWriter;

  constructor(private readonly deps: FoundryServingDeps) {
    this.predictionLog = new PredictionLogWriter(
      deps.store,
      { keep: PREDICTION_LOG_KEEP, maxPending: PREDICTION_LOG_PENDING, delayMs: PREDICTION_LOG_DELAY_MS },
      deps.logger,
    );
  }

  /** POST /models/{id}/deploy: 202 with the registry row `deploying`; the load runs in the background. */
  async deploy(t: TenantRef, modelId: string, modelName: string) {
    if (!MODEL_NAME_RE.test(modelName)) {
      throw AppError.validation([
        {
          loc: ["body", "model_name"],
          msg: "model_name must be 1-40 lowercase letters, digits or hyphens, starting and ending with a letter or digit",
          type: "value_error",
          input: modelName,
          ctx: { pattern: MODEL_NAME_RE.source },
        },
      ]);
    }
    const { inference, loader } = this.deps;
    if (!inference || !loader) throw new AppError("unavailable", "No inference server is configured");
    const m = await this.deps.models.get(t, modelId);
    if (m.status !== "ready" || !m.artifact?.path || !m.result) {
      throw new AppError("conflict", `Model '${m.name}' is ${m.status}: only a trained model can be deployed`);
    }
    loader.checkCapacity();
    const dep = await this.deps.store.upsertDeployment({
      id: crypto.randomUUID(),
      tenant_id: t.tenantId,
      model_id: m.id,
      model_name: modelName,
      artifact_sha256: m.artifact.sha256,
      artifact_path: m.artifact.path,
      metrics: m.metrics,
      problem_type: String(m.result.problem_type ?? "classification"),
    });
    if (!dep) {
      const taken = await this.deps.store.getByName(t.tenantId, modelName);
      const other = await this.deps.store.getByModel(t.tenantId, m.id);
      throw new AppError(
        "conflict",
        taken && taken.model_id !== m.id
          ? `The model name '${modelName}' is taken in this tenant`
          : `Model '${m.name}' is deployed as '${other?.model_name}'`,
      );
    }
    loader.enqueue(dep);
    return deploymentView(dep);
  }

  /** The tenant's deployment of a model (by model id or registry id). */
  async deployment(t: TenantRef, id: string) {
    return deploymentView(await this.deploymentFor(t, id));
  }

  /**
   * Predictions for rows (or a forecast of `horizon` steps for a time-series model). Agents
   * call this with a registry id; the route with a model id. 503 + Retry-After while deploying.
   */
  async predict(
    t: TenantRef,
    modelIdOrRegistryId: string,
    rows: Record<string, JsonValue>[],
    opts: { horizon?: number; field?: string } = {},
  ): Promise<PredictResult> {
    const dep = await this.deploymentFor(t, modelIdOrRegistryId);
    if (dep.status === "deploying") {
      throw new AppError("unavailable", `Model '${dep.model_name}' is deploying; retry shortly`, undefined, {
        "Retry-After": String(RETRY_AFTER_S),
      });
    }
    if (dep.status === "failed") {
      throw new AppError("conflict", `The deployment of '${dep.model_name}' failed: ${dep.error ?? "unknown error"}`);
    }
    const inference = this.deps.inference;
    if (!inference) throw new AppError("unavailable", "No inference server is configured");
    const run = await this.runOf(t, dep);
    const schema = servingSchema(run);
    const name = servedName(dep);
    const at = new Date().toISOString();
    let predictions: Prediction[];
    let servedBy: PredictResult["served_by"] = "oip";
    if (schema.problemType === "timeseries") {
      const horizon = opts.horizon;
      if (!Number.isInteger(horizon) || (horizon as number) < 1 || (horizon as number) > MAX_HORIZON) {
        throw AppError.validation([
          {
            loc: ["body", "horizon"],
            msg: `a time-series model needs horizon, an integer from 1 to ${MAX_HORIZON}`,
            type: "value_error",
            input: horizon ?? null,
            ctx: {},
          },
        ]);
      }
      const outputs = await inference.infer(name, [
        { name: "horizon", datatype: "INT64", shape: [1], data: [horizon as number] },
      ]);
      predictions = forecastFrom(outputs);
      await this.log(dep, [{ horizon: horizon as number }], [{ forecast: predictions as JsonValue }], at);
    } else {
      this.checkBatch(schema, rows, opts.field ?? "rows");
      const fast = this.deps.fast;
      const fastModel = fastModelOf(run);
      if (fast && fastModel && FAST_PROBLEM_TYPES.has(schema.problemType)) {
        predictions = fastPredictions(schema, await fast.score(fastModel, rows), dep.threshold);
        servedBy = "onnx";
      } else {
        const outputs = await inference.infer(name, inferInputs(schema, rows));
        predictions = predictionsFrom(schema, outputs, rows.length, dep.threshold);
      }
      await this.log(dep, rows, predictions as JsonValue[], at);
    }
    const binary = schema.problemType === "classification" && schema.classes?.length === 2;
    return {
      model_id: dep.model_id,
      registry_id: dep.id,
      model_name: dep.model_name,
      version: dep.version,
      problem_type: schema.problemType,
      threshold: binary ? dep.threshold : null,
      served_by: servedBy,
      predictions,
    };
  }

  /** POST /models/{id}/threshold: binary deployed models; with a metric, the best on validation data. */
  async setThreshold(t: TenantRef, id: string, threshold: number, metric?: ThresholdMetric | null) {
    const dep = await this.deploymentFor(t, id);
    const run = await this.runOf(t, dep);
    const classes = Array.isArray(run.classes) ? run.classes : [];
    if (dep.problem_type !== "classification" || classes.length !== 2) {
      throw new AppError("conflict", `Model '${dep.model_name}' is not a binary classifier: it has no threshold`);
    }
    const updated = (await this.deps.store.updateDeployment(t.tenantId, dep.id, {
      threshold,
      threshold_metric: metric ?? null,
    })) as Deployment;
    const view = { ...deploymentView(updated), positive_class: classes[1] as JsonValue };
    if (!metric) return { ...view, best_threshold: null };
    const v = run.validation_scores as { scores?: number[]; labels?: number[] } | undefined;
    const best = v?.scores && v.labels ? bestThreshold({ scores: v.scores, labels: v.labels }, metric) : null;
    return {
      ...view,
      best_threshold: best
        ? { metric, threshold: best.threshold, value: best.value, validation_rows: best.rows }
        : { metric, threshold: null, value: null, validation_rows: 0, reason: "the run kept no validation scores" },
    };
  }

  /** GET /models/{id}/drift: PSI per feature over the newest 500 logged predictions. */
  async drift(t: TenantRef, id: string) {
    const dep = await this.deploymentFor(t, id);
    await this.predictionLog.flush(); // every prediction answered so far is in the window
    return driftReport(dep, await this.runOf(t, dep), this.deps.store);
  }

  /** GET /models/{id}/explain: for any ready model (deployed or not). */
  async explain(t: TenantRef, id: string) {
    const m = await this.deps.models.get(t, id);
    if (m.status !== "ready" || !m.result) {
      throw new AppError("conflict", `Model '${m.name}' is ${m.status}: it has no stored feature importances yet`);
    }
    const dep = await this.deps.store.getByModel(t.tenantId, m.id);
    return explainModel(m, dep?.model_name ?? m.name, this.deps.llm);
  }

  /** GET /models/{id}/deploy/manifest: the KServe InferenceService of the deployment. */
  async manifest(t: TenantRef, id: string, namespace: string) {
    return deploymentManifest(await this.deploymentFor(t, id), namespace);
  }

  /** On start: deployments left `deploying` by a stopped service are loaded again. */
  async resume(): Promise<number> {
    if (!this.deps.loader) return 0;
    const pending = await this.deps.store.listByStatus("deploying");
    for (const d of pending) this.deps.loader.enqueue(d);
    return pending.length;
  }

  /**
   * Service shutdown: no new loads; one in flight is not recorded (the next start loads it
   * again); the fast path's processes stop.
   */
  close(): Promise<void> {
    this.deps.loader?.close();
    this.deps.fast?.close?.();
    return this.predictionLog.flush();
  }

  private checkBatch(schema: ServingSchema, rows: Record<string, JsonValue>[], field: string): void {
    if (!rows.length || rows.length > MAX_PREDICT_ROWS) {
      throw AppError.validation([
        {
          loc: ["body", field],
          msg: `between 1 and ${MAX_PREDICT_ROWS} rows per request`,
          type: "value_error",
          input: rows.length,
          ctx: { max: MAX_PREDICT_ROWS },
        },
      ]);
    }
    checkRows(schema, rows, field);
  }

  private async log(dep: Deployment, inputs: Record<string, JsonValue>[], outputs: JsonValue[], at: string) {
    const entries = inputs.map((row, i) => ({
      inputs: row,
      output: outputs[i] as Record<string, JsonValue>,
      version: dep.version,
      at,
    }));
    await this.predictionLog.append(dep.id, entries);
  }

  private async runOf(t: TenantRef, dep: Deployment): Promise<Record<string, JsonValue>> {
    const cached = this.runs.get(dep.model_id);
    if (cached) return cached;
    const m = await this.deps.models.get(t, dep.model_id);
    const result = m.result ?? {};
    if (this.runs.size >= 256) this.runs.delete(this.runs.keys().next().value as string);
    this.runs.set(dep.model_id, result);
    return result;
  }

  /** By model id first, then registry id; 404 when neither is the tenant's, 409 when never deployed. */
  private async deploymentFor(t: TenantRef, id: string): Promise<Deployment> {
    const store = this.deps.store;
    const dep = (await store.getByModel(t.tenantId, id)) ?? (await store.getDeployment(t.tenantId, id));
    if (dep) return dep;
    const m = await this.deps.models.get(t, id); // 404 when not the tenant's model
    throw new AppError("conflict", `Model '${m.name}' is not deployed: POST /v1/foundry/models/${id}/deploy first`);
  }
}
