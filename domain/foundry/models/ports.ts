/** What the model service needs from engines: its control-plane table, the job queue, the lab. */
import type { JobQueue, JsonValue } from "../../ports.ts";
import type { ModelRecord, ModelStatus, ProblemType } from "./model.ts";

export interface NewModel {
  id: string;
  tenant_id: string;
  name: string;
  dataset_id: string;
  table_name: string;
  target_column: string;
  feature_columns: string[];
  problem_type: ProblemType | null;
  job_id: string;
  tuning_id?: string | null;
  tuned_params?: Record<string, JsonValue> | null;
}

export interface ModelPatch {
  status?: ModelStatus;
  progress?: JsonValue | null;
  error?: string | null;
  result?: Record<string, JsonValue> | null;
  artifact_sha256?: string | null;
  artifact_path?: string | null;
  finished_at?: string | null;
}

/** Model runs in the control plane (SQLite and Postgres); every call carries the tenant id. */
export interface ModelStore {
  createModel(m: NewModel): Promise<ModelRecord>;
  getModel(tenantId: string, id: string): Promise<ModelRecord | null>;
  /** Oldest first. */
  listModels(tenantId: string): Promise<ModelRecord[]>;
  /**
   * Applies the patch while the record's status is one of `whenStatus` (absent: always);
   * returns the updated record, or null when the status had moved on.
   */
  updateModel(tenantId: string, id: string, patch: ModelPatch, whenStatus?: ModelStatus[]): Promise<ModelRecord | null>;
}

/** Where training runs are queued (the "foundry-train" queue, consumed by the lab worker). */
export type TrainQueue = Pick<JobQueue, "enqueue" | "getJob">;

/** The lakehouse catalog as the lab opens it (the gateway's catalog URI and warehouse). */
export interface LabCatalog {
  catalogUri: string;
  warehouse: string;
}

/** Lab options every run gets from the installation's configuration (docs/foundry-models.md). */
export interface TrainDefaults {
  /** Limits the roster (names as the lab spells them); null = the full roster. */
  algorithms: string[] | null;
  /** Per-algorithm wall-clock timeout in seconds; null = the lab's default (300). */
  timeoutS: number | null;
}
