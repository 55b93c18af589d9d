/**
 * What a prediction request becomes and what comes back (docs/foundry-serving.md): the rows
 * checked against the model's feature columns (unknown or missing ones: 422 naming them), the
 * Open Inference Protocol v2 input tensors (one per column: FP64 for numeric features, BYTES for
 * the others), and the server's outputs turned into one prediction per row. Pure functions.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import type { JsonValue } from "../../ports.ts";
import type { Prediction } from "./model.ts";
import type { InferInput, InferOutput } from "./ports.ts";

/** Rows one request may carry (batches above it: 422). */
export const MAX_PREDICT_ROWS = 1000;
export const MAX_HORIZON = 1000;

/** What serving needs of a model run's result (lab RunResult). */
export interface ServingSchema {
  problemType: string;
  /** Columns a row must carry, in the model's order. */
  columns: string[];
  numeric: Set<string>;
  classes: JsonValue[] | null;
}

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: JsonValue | undefined): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** The schema from the run's result; anomaly rows carry the scored inputs and the time column. */
export function servingSchema(result: Record<string, JsonValue>): ServingSchema {
  const problemType = String(result.problem_type ?? "");
  const kinds = isObject(result.feature_kinds) ? result.feature_kinds : {};
  if (problemType === "anomaly") {
    const inputs = strings(result.inputs).length ? strings(result.inputs) : strings(result.features);
    const time = typeof result.time_column === "string" ? result.time_column : null;
    const columns = time && !inputs.includes(time) ? [...inputs, time] : inputs;
    return { problemType, columns, numeric: new Set(inputs.filter((c) => c !== time)), classes: null };
  }
  return {
    problemType,
    columns: problemType === "timeseries" ? [] : strings(result.features),
    numeric: new Set(strings(kinds.numeric)),
    classes: Array.isArray(result.classes) ? result.classes : null,
  };
}

const issue = (loc: string[], msg: string, input: unknown, type = "value_error"): ValidationIssue => ({
  loc,
  msg,
  type,
  input,
  ctx: {},
});

/** 422 unless every row has exactly the model's columns, numbers where the model expects them. */
export function checkRows(schema: ServingSchema, rows: Record<string, JsonValue>[], field: string): void {
  const issues: ValidationIssue[] = [];
  const known = new Set(schema.columns);
  rows.forEach((row, i) => {
    const unknown = Object.keys(row).filter((k) => !known.has(k));
    const missing = schema.columns.filter((c) => !(c in row));
    if (unknown.length) {
      issues.push(
        issue(["body", field, String(i)], `unknown feature column(s): ${unknown.slice(0, 20).join(", ")}`, unknown),
      );
    }
    if (missing.length) {
      issues.push(
        issue(["body", field, String(i)], `missing feature column(s): ${missing.slice(0, 20).join(", ")}`, missing),
      );
    }
    for (const c of schema.columns) {
      const v = row[c];
      if (v === undefined || v === null) continue;
      if (schema.numeric.has(c) ? typeof v !== "number" : typeof v === "object") {
        const want = schema.numeric.has(c) ? "a number or null" : "a string, number, boolean or null";
        issues.push(issue(["body", field, String(i), c], `${c} must be ${want}`, v, "type_error"));
      }
    }
  });
  if (issues.length) throw AppError.validation(issues.slice(0, 50));
}

/** One tensor per column, shape [n]: FP64 for numeric features (null = missing), BYTES otherwise. */
export function inferInputs(schema: ServingSchema, rows: Record<string, JsonValue>[]): InferInput[] {
  return schema.columns.map((c) => {
    const numeric = schema.numeric.has(c);
    return {
      name: c,
      datatype: numeric ? "FP64" : "BYTES",
      shape: [rows.length],
      data: rows.map((r) => {
        const v = r[c];
        if (v === undefined || v === null) return null;
        return numeric ? v : String(v);
      }),
    };
  });
}

function output(outputs: InferOutput[], name: string): JsonValue[] {
  const o = outputs.find((x) => x.name === name);
  if (!o) throw new AppError("internal", `The inference server answered without the output '${name}'`);
  return o.data;
}

const parseJson = (v: JsonValue): JsonValue => {
  try {
    return JSON.parse(String(v)) as JsonValue;
  } catch {
    return v;
  }
};

/**
 * One prediction per row. Binary classifiers: score = probability of the positive class
 * (classes[1]), label = 1 when score >= threshold else 0 (spec 4.9), and `class` = the
 * original class value of that label. Multi-class: label (the class) and its probabilities.
 */
export function predictionsFrom(
  schema: ServingSchema,
  outputs: InferOutput[],
  n: number,
  threshold: number,
): Prediction[] {
  const out: Prediction[] = [];
  switch (schema.problemType) {
    case "classification": {
      const classes = output(outputs, "classes").map(parseJson);
      const probs = output(outputs, "probabilities").map(Number);
      const labels = output(outputs, "label").map(parseJson);
      const k = classes.length;
      for (let i = 0; i < n; i++) {
        if (k === 2) {
          const score = probs[i * 2 + 1] as number;
          const label = score >= threshold ? 1 : 0;
          out.push({ label, score, class: classes[label] as JsonValue });
        } else {
          const probabilities: Record<string, number> = {};
          classes.forEach((c, j) => {
            probabilities[String(c)] = probs[i * k + j] as number;
          });
          out.push({ label: labels[i] as string | number | boolean | null, probabilities });
        }
      }
      return out;
    }
    case "regression":
      return output(outputs, "value").map((v) => ({ value: Number(v) }));
    case "anomaly": {
      const flags = output(outputs, "flag");
      return output(outputs, "score").map((s, i) => ({ score: Number(s), flag: flags[i] === true }));
    }
    default:
      throw new AppError("internal", `Cannot serve a ${schema.problemType} model`);
  }
}

/** A time-series forecast: `horizon` steps after the series' last timestamp. */
export function forecastFrom(outputs: InferOutput[]): Prediction[] {
  const yhat = output(outputs, "yhat");
  return output(outputs, "ds").map((ds, i) => ({ ds: String(ds), yhat: Number(yhat[i]) }));
}
