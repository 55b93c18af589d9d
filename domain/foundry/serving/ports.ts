/** What model serving needs from engines: the registry and prediction log, the inference server. */
import type { JsonValue } from "../../ports.ts";
import type { Deployment, DeploymentStatus, PredictionLogEntry, ThresholdMetric } from "./model.ts";

export interface NewDeployment {
  id: string;
  tenant_id: string;
  model_id: string;
  model_name: string;
  artifact_sha256: string;
  artifact_path: string;
  metrics: Record<string, JsonValue> | null;
  problem_type: string;
}

export interface DeploymentPatch {
  status?: DeploymentStatus;
  error?: string | null;
  threshold?: number;
  threshold_metric?: ThresholdMetric | null;
}

/** The registry and the prediction log in the control plane (SQLite and Postgres). */
export interface DeploymentStore {
  /**
   * A new deployment (version 1) or, when the model is already deployed under the same name,
   * the same row back to `deploying` with version + 1 and the artifact of the call. Null when
   * the name is taken in the tenant by another model, or the model has another name.
   */
  upsertDeployment(d: NewDeployment): Promise<Deployment | null>;
  getDeployment(tenantId: string, id: string): Promise<Deployment | null>;
  getByModel(tenantId: string, modelId: string): Promise<Deployment | null>;
  getByName(tenantId: string, modelName: string): Promise<Deployment | null>;
  /** Every tenant's deployments in one status (a restart re-checks the `deploying` ones). */
  listByStatus(status: DeploymentStatus): Promise<Deployment[]>;
  /** Applies the patch while the status is one of `whenStatus` (absent: always); null when it moved on. */
  updateDeployment(
    tenantId: string,
    id: string,
    patch: DeploymentPatch,
    whenStatus?: DeploymentStatus[],
  ): Promise<Deployment | null>;
  /** Appends entries, then keeps only the newest `keep` of the deployment. */
  appendPredictions(deploymentId: string, entries: PredictionLogEntry[], keep: number): Promise<void>;
  /** The newest `limit` entries, newest first. */
  recentPredictions(deploymentId: string, limit: number): Promise<PredictionLogEntry[]>;
}

/** One input tensor of an Open Inference Protocol v2 request. */
export interface InferInput {
  name: string;
  datatype: "FP64" | "INT64" | "BYTES";
  shape: number[];
  data: JsonValue[];
}

export interface InferOutput {
  name: string;
  datatype: string;
  shape: number[];
  data: JsonValue[];
}

/** What a deployment is loaded from. */
export interface ServedModel {
  /** servedName(): tenant-qualified. */
  name: string;
  version: number;
  artifactPath: string;
  artifactSha256: string;
}

/**
 * The inference server (MLServer over OIP v2 REST; adapters/serving/mlserver-client.ts).
 * Errors: AppError unavailable when the server cannot be reached; bad_request for a 400.
 */
export interface InferencePort {
  /** Registers the model in the server's repository and loads it; resolves once it is ready. */
  load(m: ServedModel): Promise<void>;
  /** Whether the server answers the model as ready. */
  ready(name: string): Promise<boolean>;
  infer(name: string, inputs: InferInput[]): Promise<InferOutput[]>;
}
