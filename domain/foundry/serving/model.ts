/**
 * Deployed models (spec 2.8, 3.4, 4.9; docs/foundry-serving.md): the registry record the
 * control plane keeps, the name rules, the MLServer name a deployment is served under and the
 * view the routes answer. No I/O here.
 */
import type { JsonValue } from "../../ports.ts";

export const DEPLOYMENT_STATUSES = ["deploying", "active", "failed"] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export const THRESHOLD_METRICS = ["f1", "precision", "recall", "balanced_accuracy"] as const;
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];

/** Spec 4.9 "short identifier, lowercase, hyphens allowed": 1-40 characters, no edge hyphen. */
export const MODEL_NAME_MAX = 40;
export const MODEL_NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
export const DEFAULT_THRESHOLD = 0.5;

/** One row of the registry: a model run served under a tenant-unique name. */
export interface Deployment {
  id: string;
  tenant_id: string;
  model_id: string;
  model_name: string;
  /** 1 on the first deploy; +1 on each redeploy of the name. */
  version: number;
  artifact_sha256: string;
  artifact_path: string;
  metrics: Record<string, JsonValue> | null;
  /** classification | regression | timeseries | anomaly (the run's detected type). */
  problem_type: string;
  threshold: number;
  threshold_metric: ThresholdMetric | null;
  status: DeploymentStatus;
  error: string | null;
  deployed_at: string;
  updated_at: string;
}

/**
 * The name MLServer serves a deployment under: the tenant id without hyphens (32 hex
 * characters, so the split is unambiguous) and the model name. Two tenants' names never meet.
 */
export function servedName(d: Pick<Deployment, "tenant_id" | "model_name">): string {
  return `${d.tenant_id.replaceAll("-", "")}--${d.model_name}`;
}

/** The response of deploy and of the deployment reads. */
export function deploymentView(d: Deployment) {
  return {
    id: d.id,
    registry_id: d.id,
    model_id: d.model_id,
    model_name: d.model_name,
    version: d.version,
    status: d.status,
    error: d.error,
    problem_type: d.problem_type,
    threshold: d.threshold,
    threshold_metric: d.threshold_metric,
    artifact_sha256: d.artifact_sha256,
    metrics: d.metrics,
    deployed_at: d.deployed_at,
  };
}

/** One logged prediction (the drift input): the row as sent, what came back, which version. */
export interface PredictionLogEntry {
  inputs: Record<string, JsonValue>;
  output: Record<string, JsonValue>;
  version: number;
  at: string;
}

/**
 * One prediction of the response; the fields present depend on the problem type: binary
 * classifiers label (1/0 by the threshold), score and class; multi-class label and
 * probabilities; regression value; anomaly score and flag; time-series ds and yhat per step.
 */
export interface Prediction {
  label?: string | number | boolean | null;
  score?: number;
  class?: JsonValue;
  probabilities?: Record<string, number>;
  value?: number;
  flag?: boolean;
  ds?: string;
  yhat?: number;
}

export interface PredictResult {
  model_id: string;
  registry_id: string;
  model_name: string;
  version: number;
  problem_type: string;
  threshold: number | null;
  /** Which path answered: the in-service ONNX fast path or the inference server (OIP v2). */
  served_by: "onnx" | "oip";
  predictions: Prediction[];
}
