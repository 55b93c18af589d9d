/**
 * Tuning experiments (spec 4.9 "Hyperparameter tuning"; docs/foundry-models.md "Tuning"): the
 * request, the record the control plane keeps, the view GET /v1/foundry/models/{id}/tune
 * answers, and the store port. No I/O here.
 */
import type { JsonValue } from "../../ports.ts";
import { isJsonObject, objects } from "./model.ts";

export const TUNING_STATUSES = ["queued", "tuning", "ready", "failed"] as const;
export type TuningStatus = (typeof TUNING_STATUSES)[number];
/** The problem types a tuning experiment takes (spec 4.9: classification, regression or auto). */
export const TUNING_PROBLEM_TYPES = ["classification", "regression", "auto"] as const;
export type TuningProblemType = (typeof TUNING_PROBLEM_TYPES)[number];
/** Spec 4.9 and 8.2: up to 12 trials, 2 in parallel. */
export const TUNING_TRIALS = 12;
export const TUNING_PARALLEL = 2;

/** The tuning start body (4.9, plus feature_columns as for training). */
export interface TuneRequest {
  dataset_id: string;
  name: string;
  target_column: string;
  feature_columns?: string[] | undefined;
  problem_type?: TuningProblemType | null | undefined;
}

export interface TuningRecord {
  id: string;
  tenant_id: string;
  name: string;
  dataset_id: string;
  table_name: string;
  target_column: string;
  feature_columns: string[];
  /** As requested (null = auto). */
  problem_type: "classification" | "regression" | null;
  status: TuningStatus;
  /** The lab's latest report ({stage, done, total, trial, best}) while queued or tuning. */
  progress: JsonValue | null;
  error: string | null;
  /** The lab's study result (lab/src/lab/models/tuning.py `tune`). */
  result: Record<string, JsonValue> | null;
  job_id: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export type NewTuning = Pick<
  TuningRecord,
  | "id"
  | "tenant_id"
  | "name"
  | "dataset_id"
  | "table_name"
  | "target_column"
  | "feature_columns"
  | "problem_type"
  | "job_id"
>;

export type TuningPatch = Partial<Pick<TuningRecord, "status" | "progress" | "error" | "result" | "finished_at">>;

/** Tuning experiments in the control plane (SQLite and Postgres); every call carries the tenant id. */
export interface TuningStore {
  createTuning(t: NewTuning): Promise<TuningRecord>;
  getTuning(tenantId: string, id: string): Promise<TuningRecord | null>;
  /** Applies the patch while the status is one of `whenStatus` (absent: always); null when it had moved on. */
  updateTuning(
    tenantId: string,
    id: string,
    patch: TuningPatch,
    whenStatus?: TuningStatus[],
  ): Promise<TuningRecord | null>;
}

/** Per family, the best hyperparameters the study found ({XGBoost: {max_depth: 4, ...}}). */
export function bestParams(r: Record<string, JsonValue> | null): Record<string, Record<string, JsonValue>> {
  const raw = r?.best_params;
  const out: Record<string, Record<string, JsonValue>> = {};
  if (isJsonObject(raw)) for (const [family, p] of Object.entries(raw)) if (isJsonObject(p)) out[family] = p;
  return out;
}

/** GET /v1/foundry/models/{id}/tune. */
export function tuningView(x: TuningRecord) {
  const r = x.result;
  const best = isJsonObject(r?.best) ? r.best : null;
  const num = (v: JsonValue | undefined) => (typeof v === "number" ? v : null);
  return {
    id: x.id,
    name: x.name,
    dataset_id: x.dataset_id,
    target_column: x.target_column,
    feature_columns: x.feature_columns,
    problem_type: (typeof r?.problem_type === "string" ? r.problem_type : null) ?? x.problem_type,
    requested_problem_type: x.problem_type,
    status: x.status,
    progress: x.status === "queued" || x.status === "tuning" ? x.progress : null,
    trials_total: TUNING_TRIALS,
    parallel: num(r?.parallel) ?? TUNING_PARALLEL,
    trials: objects(r?.trials),
    max_concurrency: num(r?.max_concurrency),
    best: best
      ? {
          algorithm: typeof best.algorithm === "string" ? best.algorithm : null,
          params: isJsonObject(best.params) ? best.params : {},
          metric: typeof r?.metric === "string" ? r.metric : null,
          value: num(best.value),
        }
      : null,
    best_params: bestParams(r),
    error: x.error,
    created_at: x.created_at,
    finished_at: x.finished_at,
  };
}
