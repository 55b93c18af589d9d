/** The best threshold on validation scores (threshold.ts). */
import { describe, expect, test } from "bun:test";
import { bestThreshold, metricAt } from "./threshold.ts";

const v = { scores: [0.1, 0.3, 0.35, 0.6, 0.8, 0.9], labels: [0, 0, 1, 0, 1, 1] };

describe("threshold", () => {
  test("metrics of score >= t against the labels", () => {
    // t = 0.35: predicted 1 for 0.35, 0.6, 0.8, 0.9 -> tp 3, fp 1, fn 0, tn 2
    expect(metricAt(v, 0.35, "precision")).toBe(0.75);
    expect(metricAt(v, 0.35, "recall")).toBe(1);
    expect(metricAt(v, 0.35, "f1")).toBeCloseTo(6 / 7, 12);
    expect(metricAt(v, 0.35, "balanced_accuracy")).toBeCloseTo((1 + 2 / 3) / 2, 12);
  });

  test("the threshold that maximises each metric; ties go to the one nearest 0.5", () => {
    expect(bestThreshold(v, "f1")).toEqual({ threshold: 0.35, value: 0.857143, rows: 6 });
    // precision 1 at 0.8 and 0.9: 0.8 is nearer 0.5
    expect(bestThreshold(v, "precision")).toMatchObject({ threshold: 0.8, value: 1 });
    // recall 1 at 0.1, 0.3 and 0.35: 0.35 is nearest
    expect(bestThreshold(v, "recall")).toMatchObject({ threshold: 0.35, value: 1 });
    expect(bestThreshold({ scores: [0, 1], labels: [0, 1] }, "f1")).toBeNull();
  });
});
