/**
 * The decision threshold of a binary model (spec 4.9 threshold rules): score >= threshold gives
 * label 1. With a metric, the threshold that maximises it on the run's validation scores
 * (lab RunResult.validation_scores: the winner's positive-class probability and the 0/1 label of
 * each validation row). Pure functions.
 */
import type { ThresholdMetric } from "./model.ts";

export interface ValidationScores {
  scores: number[];
  labels: number[];
}

/** The metric of the labels `score >= t` against the truth (0 when undefined, e.g. no positives predicted). */
export function metricAt(v: ValidationScores, t: number, metric: ThresholdMetric): number {
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  v.scores.forEach((s, i) => {
    const predicted = s >= t;
    const actual = v.labels[i] === 1;
    if (predicted && actual) tp++;
    else if (predicted) fp++;
    else if (actual) fn++;
    else tn++;
  });
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  switch (metric) {
    case "precision":
      return precision;
    case "recall":
      return recall;
    case "f1":
      return precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    case "balanced_accuracy": {
      const specificity = tn + fp ? tn / (tn + fp) : 0;
      return (recall + specificity) / 2;
    }
  }
}

/**
 * The threshold strictly inside (0, 1) that maximises `metric`: every distinct validation score
 * is a candidate (the labels change only there). Ties go to the candidate nearest 0.5, so
 * precision's "any very high threshold" and recall's "any very low one" stay moderate.
 */
export function bestThreshold(
  v: ValidationScores,
  metric: ThresholdMetric,
): { threshold: number; value: number; rows: number } | null {
  const candidates = [...new Set(v.scores)].filter((s) => s > 0 && s < 1);
  if (!candidates.length) return null;
  let best = { threshold: candidates[0] as number, value: -1 };
  for (const t of candidates) {
    const value = metricAt(v, t, metric);
    const closer = Math.abs(t - 0.5) < Math.abs(best.threshold - 0.5);
    if (value > best.value + 1e-12 || (Math.abs(value - best.value) <= 1e-12 && closer)) best = { threshold: t, value };
  }
  return { threshold: best.threshold, value: Math.round(best.value * 1e6) / 1e6, rows: v.scores.length };
}
