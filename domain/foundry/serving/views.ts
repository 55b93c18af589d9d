/** The drift report and the explanation of a deployed model (service.ts calls these). */
import type { ChatModel } from "../../llm.ts";
import type { JsonValue } from "../../ports.ts";
import {
  DRIFT_ACTIONS,
  DRIFT_MIN_PREDICTIONS,
  DRIFT_WINDOW,
  type FeatureBaseline,
  type FeatureDrift,
  featureDrift,
  overallStatus,
} from "./drift.ts";
import { type ExplainFacts, explain } from "./explain.ts";
import type { Deployment } from "./model.ts";
import type { DeploymentStore } from "./ports.ts";

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Spec 4.9 drift rules; fewer than DRIFT_MIN_PREDICTIONS logged: insufficient_data, no number. */
export async function driftReport(dep: Deployment, run: Record<string, JsonValue>, store: DeploymentStore) {
  const entries = await store.recentPredictions(dep.id, DRIFT_WINDOW);
  const base = {
    model_id: dep.model_id,
    registry_id: dep.id,
    model_name: dep.model_name,
    predictions: entries.length,
    window: DRIFT_WINDOW,
    minimum: DRIFT_MIN_PREDICTIONS,
  };
  const baseline =
    isObject(run.drift_baseline) && Array.isArray(run.drift_baseline.features)
      ? (run.drift_baseline.features.filter(isObject) as unknown as FeatureBaseline[])
      : [];
  if (dep.problem_type === "timeseries") {
    // A forecast takes no input rows: there is nothing to compare with the series' baseline.
    return {
      ...base,
      status: "not_applicable",
      action: "none",
      reason: "a forecast takes no input rows",
      features: [],
    };
  }
  if (!baseline.length) {
    return { ...base, status: "no_baseline", action: "none", reason: "the run stored no drift baseline", features: [] };
  }
  if (entries.length < DRIFT_MIN_PREDICTIONS) {
    return {
      ...base,
      status: "insufficient_data",
      action: "none",
      reason: `${entries.length} logged predictions; PSI needs at least ${DRIFT_MIN_PREDICTIONS}`,
      features: [],
    };
  }
  const rows = entries.map((e) => e.inputs);
  const features = baseline.map((b) => featureDrift(b, rows)).filter((f): f is FeatureDrift => f !== null);
  const status = overallStatus(features);
  return { ...base, status, action: DRIFT_ACTIONS[status], reason: null, features };
}

/** The facts of a run's explanation, only from what the lab stored. */
export function explainFacts(
  m: { name: string; target_column: string; result: Record<string, JsonValue> | null },
  modelName: string,
): ExplainFacts {
  const r = m.result ?? {};
  const winner = isObject(r.winner) ? r.winner : {};
  const importances = (Array.isArray(r.feature_importance) ? r.feature_importance : [])
    .filter(isObject)
    .filter((x) => typeof x.feature === "string" && typeof x.importance === "number")
    .map((x) => ({ feature: x.feature as string, importance: x.importance as number }))
    .sort((a, b) => b.importance - a.importance);
  return {
    model_name: modelName,
    algorithm: typeof winner.algorithm === "string" ? winner.algorithm : null,
    target: typeof r.target === "string" ? r.target : m.target_column,
    problem_type: String(r.problem_type ?? "unknown"),
    importances,
    method: typeof r.feature_importance_method === "string" ? r.feature_importance_method : null,
    criterion:
      typeof winner.metric === "string" && typeof winner.value === "number"
        ? { metric: winner.metric, value: winner.value }
        : null,
  };
}

export async function explainModel(
  m: { id: string; name: string; target_column: string; result: Record<string, JsonValue> | null },
  modelName: string,
  llm: ChatModel | null,
) {
  const facts = explainFacts(m, modelName);
  return { model_id: m.id, ...(await explain(facts, llm)) };
}
