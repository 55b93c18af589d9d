/**
 * Population Stability Index per feature (spec 4.9 drift rules; docs/foundry-serving.md): the
 * logged prediction inputs against the training baseline the lab stored (lab/src/lab/models/
 * competition.py drift_baseline). Pure functions.
 *
 * PSI = sum over bins of (actual - expected) * ln(actual / expected), with EPSILON in place of
 * an empty bin's fraction (on either side) so the logarithm stays finite.
 * - numeric features: the baseline's decile bins (11 edges). A value goes in the bin numpy's
 *   histogram would put it in (edges[i] <= v < edges[i+1]); values outside the training range
 *   go in the first or last bin. Missing values are left out on both sides.
 * - categorical features: the baseline's category frequencies; a category the baseline does not
 *   list counts as "__other__" (the lab's bucket beyond its 32 most frequent), or as a new
 *   bucket with an expected fraction of EPSILON.
 */
import type { JsonValue } from "../../ports.ts";

export const EPSILON = 1e-4;
/** Entries of the prediction log a drift read compares (spec 4.9). */
export const DRIFT_WINDOW = 500;
/** Fewer logged predictions than this: status insufficient_data, no PSI. */
export const DRIFT_MIN_PREDICTIONS = 50;

export type DriftStatus = "stable" | "moderate" | "critical";

/** Spec 4.9: below 0.10 stable; 0.10 to 0.20 moderate; above 0.20 critical. */
export const DRIFT_ACTIONS: Record<DriftStatus, string> = {
  stable: "none",
  moderate: "monitor; consider retraining if the trend continues",
  critical: "retraining recommended",
};

export function driftStatus(psi: number): DriftStatus {
  if (psi < 0.1) return "stable";
  return psi <= 0.2 ? "moderate" : "critical";
}

/** PSI of two distributions over the same bins (fractions, each summing to about 1). */
export function psi(expected: number[], actual: number[]): number {
  let sum = 0;
  for (let i = 0; i < expected.length; i++) {
    const e = Math.max(expected[i] ?? 0, EPSILON);
    const a = Math.max(actual[i] ?? 0, EPSILON);
    sum += (a - e) * Math.log(a / e);
  }
  return sum;
}

/** The bin of `v` among `edges` as numpy.histogram counts it, clamped to the outer bins. */
export function binOf(v: number, edges: number[]): number {
  const bins = edges.length - 1;
  let at = 0;
  while (at < edges.length && (edges[at] as number) <= v) at++;
  return Math.min(Math.max(at - 1, 0), bins - 1);
}

/** Fractions of present values per bin (empty array without values). */
export function numericFractions(values: number[], edges: number[]): number[] {
  const counts = new Array<number>(edges.length - 1).fill(0);
  for (const v of values) counts[binOf(v, edges)] = (counts[binOf(v, edges)] as number) + 1;
  return values.length ? counts.map((c) => c / values.length) : counts;
}

export interface FeatureBaseline {
  feature: string;
  kind: "numeric" | "categorical";
  bin_edges?: number[];
  bin_fractions?: number[];
  frequencies?: Record<string, number>;
}

export interface FeatureDrift {
  feature: string;
  kind: "numeric" | "categorical";
  psi: number;
  status: DriftStatus;
  action: string;
  /** Present values compared (missing ones are left out). */
  values: number;
}

const OTHER = "__other__";

function categoricalPsi(b: FeatureBaseline, values: string[]): number {
  const expected = b.frequencies ?? {};
  const counts = new Map<string, number>();
  for (const raw of values) {
    const key = raw in expected ? raw : OTHER in expected ? OTHER : `__new__:${raw}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const keys = [...new Set([...Object.keys(expected), ...counts.keys()])];
  const n = values.length || 1;
  return psi(
    keys.map((k) => expected[k] ?? 0),
    keys.map((k) => (counts.get(k) ?? 0) / n),
  );
}

const toNumber = (v: JsonValue | undefined): number | null => {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
};

/** PSI of one feature over the logged input rows; null when no row carries a value for it. */
export function featureDrift(b: FeatureBaseline, rows: Record<string, JsonValue>[]): FeatureDrift | null {
  const present = rows.map((r) => r[b.feature]).filter((v) => v !== null && v !== undefined);
  let value: number;
  let count: number;
  if (b.kind === "numeric") {
    const edges = b.bin_edges ?? [];
    const nums = present.map(toNumber).filter((v): v is number => v !== null);
    if (edges.length < 2 || !nums.length) return null;
    value = psi(b.bin_fractions ?? [], numericFractions(nums, edges));
    count = nums.length;
  } else {
    if (!present.length) return null;
    value = categoricalPsi(
      b,
      present.map((v) => String(v)),
    );
    count = present.length;
  }
  const rounded = Math.round(value * 1e6) / 1e6;
  const status = driftStatus(rounded);
  return { feature: b.feature, kind: b.kind, psi: rounded, status, action: DRIFT_ACTIONS[status], values: count };
}

const RANK: Record<DriftStatus, number> = { stable: 0, moderate: 1, critical: 2 };

/** The worst status of the features (stable when there are none). */
export function overallStatus(features: FeatureDrift[]): DriftStatus {
  return features.reduce<DriftStatus>((w, f) => (RANK[f.status] > RANK[w] ? f.status : w), "stable");
}
