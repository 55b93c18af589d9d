/**
 * Model training runs (spec 2.8, 4.9; docs/foundry-models.md): the request a caller posts,
 * the record the control plane keeps, and the views the routes answer. No I/O here.
 */
import type { JsonValue } from "../../ports.ts";

export const MODEL_STATUSES = ["queued", "training", "ready", "failed"] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

export const PROBLEM_TYPES = ["classification", "regression", "timeseries", "anomaly", "auto"] as const;
export type ProblemType = (typeof PROBLEM_TYPES)[number];

/** POST /v1/foundry/models/train (4.9, exactly). */
export interface TrainRequest {
  dataset_id: string;
  name: string;
  target_column: string;
  feature_columns?: string[] | undefined;
  problem_type?: ProblemType | null | undefined;
  /** Anomaly runs only, beyond the spec: a 0/1 or boolean column of known anomalies (precision/recall). */
  label_column?: string | null | undefined;
  /** A ready tuning experiment on the same dataset and target: its best params per family are used. */
  tuning_id?: string | undefined;
}

/** The record the control plane keeps (one row per training run). */
export interface ModelRecord {
  id: string;
  tenant_id: string;
  name: string;
  dataset_id: string;
  /** The dataset's output table at the time of the request. */
  table_name: string;
  target_column: string;
  /** As requested; empty = every column but the target. */
  feature_columns: string[];
  /** As requested (null = auto). */
  problem_type: ProblemType | null;
  status: ModelStatus;
  /** The lab's latest progress report while training ({stage, done, total, record}). */
  progress: JsonValue | null;
  /** Why the run failed (status failed). */
  error: string | null;
  /** The lab's RunResult (docs/foundry-models.md), without the artifact bytes. */
  result: Record<string, JsonValue> | null;
  job_id: string;
  artifact_sha256: string | null;
  artifact_path: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** The tuning experiment whose best hyperparameters the run used (null: the roster's defaults). */
  tuning_id: string | null;
  /** Those hyperparameters per family, as passed to the lab (options.params). */
  tuned_params: Record<string, JsonValue> | null;
}

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The objects of a JSON array (anything else: none). */
export function objects(v: JsonValue | undefined): Record<string, JsonValue>[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** GET /v1/foundry/models element: what a list needs, without the full result. */
export function modelSummary(m: ModelRecord) {
  const r = m.result;
  return {
    id: m.id,
    name: m.name,
    dataset_id: m.dataset_id,
    target_column: m.target_column,
    problem_type: (r?.problem_type as string | undefined) ?? m.problem_type,
    status: m.status,
    winner: isObject(r?.winner) ? r.winner : null,
    error: m.error,
    created_at: m.created_at,
    finished_at: m.finished_at,
  };
}

/** GET /v1/foundry/models/{id}: the record with the lab's result (metrics, per-algorithm records, ...). */
export function modelView(m: ModelRecord) {
  const r = m.result;
  return {
    ...modelSummary(m),
    feature_columns: m.feature_columns,
    requested_problem_type: m.problem_type,
    tuning_id: m.tuning_id,
    tuned_params: m.tuned_params,
    progress: m.status === "training" || m.status === "queued" ? m.progress : null,
    metrics: isObject(r?.metrics) ? r.metrics : null,
    algorithms: objects(r?.algorithms),
    feature_importance: objects(r?.feature_importance),
    imbalance_ratio: typeof r?.imbalance_ratio === "number" ? r.imbalance_ratio : null,
    smote_applied: typeof r?.smote_applied === "boolean" ? r.smote_applied : null,
    class_weight_applied: typeof r?.class_weight_applied === "boolean" ? r.class_weight_applied : null,
    ...seriesView(r),
    artifact: m.artifact_sha256 ? { sha256: m.artifact_sha256, path: m.artifact_path } : null,
    result: r,
  };
}

const str = (v: JsonValue | undefined) => (typeof v === "string" ? v : null);

/**
 * Time-series and anomaly fields of the view (null for the other types): the time and label
 * columns, the detector used for inference (anomaly: IsolationForest, spec 4.9), the forecast
 * horizon (holdout points) and the series' frequency (a pandas offset alias: MS, D, 30min).
 */
function seriesView(r: Record<string, JsonValue> | null) {
  return {
    time_column: str(r?.time_column),
    label_column: str(r?.label_column),
    inference_algorithm: str(r?.inference_algorithm),
    horizon: typeof r?.horizon === "number" ? r.horizon : null,
    frequency: str(r?.frequency),
  };
}

/** Drops the artifact bytes a lab returns when it had no artifact directory. */
export function storableResult(result: JsonValue): Record<string, JsonValue> | null {
  if (!isObject(result)) return null;
  const out = { ...result };
  if (isObject(out.artifact)) {
    const { base64: _drop, ...rest } = out.artifact;
    out.artifact = rest;
  }
  return out;
}

export { isObject as isJsonObject };
