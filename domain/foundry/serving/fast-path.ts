/**
 * The ONNX fast path's port (issue 17 "Fast path"; docs/foundry-onnx.md): tree and linear models
 * converted by the lab (lab/src/lab/models/onnx_export.py, `artifact.onnx` of the RunResult) are
 * scored in the service without the inference server. Adapter: adapters/onnx/scorer.ts.
 */
import { AppError } from "../../errors.ts";
import type { JsonValue } from "../../ports.ts";
import type { Prediction } from "./model.ts";
import type { ServingSchema } from "./predict.ts";

/** One input of the graph, as the lab recorded it in `artifact.onnx.inputs` (one per feature). */
export interface FastInput {
  name: string;
  /** "float64": numbers, booleans (0/1), datetimes (epoch seconds); "string": categories. */
  type: "float64" | "string";
  /** The training column's kind; decides how a JSON value becomes the tensor value. */
  kind?: "number" | "boolean" | "datetime" | "category";
}

/** The converted model: where its bytes are and what it reads. */
export interface FastModel {
  /** sha256 of the .onnx bytes (the cache key; checked when the bytes are loaded). */
  sha256: string;
  /** `artifact.onnx.path`: a local file (or what the adapter's loader understands). */
  path: string;
  inputs: FastInput[];
}

/** Classification: one row of class probabilities per input row, columns in the model's class
 * order. Regression: one value per input row. */
export interface FastScores {
  probabilities?: number[][];
  values?: number[];
}

/**
 * Scores rows with a converted model, off the service's event loop.
 * A row's missing or null feature is a missing value (NaN / "__missing__"), exactly as the lab
 * treats it; the caller checks for unknown and missing columns first (422 naming them).
 * Errors: AppError "unavailable" when the scorer is saturated or its runtime died;
 * "internal" when the bytes do not match `sha256` or the graph cannot be loaded.
 */
export interface FastScorer {
  score(model: FastModel, rows: Record<string, JsonValue>[]): Promise<FastScores>;
  /** Service shutdown: the scorer's processes stop. */
  close?(): void;
}

/** The problem types the fast path answers; the others (anomaly, time-series) stay on OIP. */
export const FAST_PROBLEM_TYPES = new Set(["classification", "regression"]);

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The converted model of a run's result (`result.artifact.onnx`, written by the lab), or null when
 * the run has none (status "unsupported" or "skipped", an older run): then the OIP path serves.
 */
export function fastModelOf(result: Record<string, JsonValue> | null | undefined): FastModel | null {
  const artifact = result?.artifact;
  const onnx = isObject(artifact) ? artifact.onnx : undefined;
  if (!isObject(onnx) || onnx.status !== "converted") return null;
  const { sha256, path, inputs } = onnx;
  if (typeof sha256 !== "string" || typeof path !== "string" || !Array.isArray(inputs)) return null;
  const parsed: FastInput[] = [];
  for (const i of inputs) {
    if (!isObject(i) || typeof i.name !== "string" || (i.type !== "float64" && i.type !== "string")) return null;
    const kind = typeof i.kind === "string" ? (i.kind as FastInput["kind"]) : undefined;
    parsed.push(kind ? { name: i.name, type: i.type, kind } : { name: i.name, type: i.type });
  }
  return { sha256, path, inputs: parsed };
}

/**
 * The fast path's scores as the same predictions the OIP path answers (predict.ts
 * predictionsFrom): binary classifiers score = p(classes[1]), label = 1 when score >= threshold
 * else 0, and its class; multi-class the argmax class as label and the probabilities by class;
 * regression the value. The graph's probability columns are in the run's class order.
 */
export function fastPredictions(schema: ServingSchema, scores: FastScores, threshold: number): Prediction[] {
  if (schema.problemType === "regression") {
    if (!scores.values) throw new AppError("internal", "The ONNX graph of a regressor answered no values");
    return scores.values.map((value) => ({ value }));
  }
  const classes = schema.classes ?? [];
  const probs = scores.probabilities;
  if (!probs || probs.some((p) => p.length !== classes.length)) {
    throw new AppError("internal", `The ONNX graph answered no ${classes.length}-class probabilities`);
  }
  if (classes.length === 2) {
    return probs.map((p) => {
      const score = p[1] as number;
      const label = score >= threshold ? 1 : 0;
      return { label, score, class: classes[label] as JsonValue };
    });
  }
  return probs.map((p) => {
    let best = 0;
    const probabilities: Record<string, number> = {};
    p.forEach((v, j) => {
      probabilities[String(classes[j])] = v;
      if (v > (p[best] as number)) best = j;
    });
    return { label: classes[best] as string | number | boolean | null, probabilities };
  });
}
