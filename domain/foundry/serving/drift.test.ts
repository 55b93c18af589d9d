/** PSI (drift.ts) against hand-computed examples. */
import { describe, expect, test } from "bun:test";
import { binOf, driftStatus, EPSILON, featureDrift, numericFractions, overallStatus, psi } from "./drift.ts";

describe("psi", () => {
  test("a hand-computed example: expected (0.5, 0.5), actual (0.8, 0.2)", () => {
    // (0.8 - 0.5) ln(0.8 / 0.5) + (0.2 - 0.5) ln(0.2 / 0.5)
    //  = 0.3 * 0.470004 + (-0.3) * (-0.916291) = 0.141001 + 0.274887 = 0.415888
    expect(psi([0.5, 0.5], [0.8, 0.2])).toBeCloseTo(0.415888, 6);
    expect(psi([0.25, 0.25, 0.5], [0.25, 0.25, 0.5])).toBe(0);
  });

  test("an empty bin counts as EPSILON, on either side", () => {
    // (1e-4 - 0.5) ln(1e-4 / 0.5) + (1 - 0.5) ln(1 / 0.5)
    const want = (EPSILON - 0.5) * Math.log(EPSILON / 0.5) + 0.5 * Math.log(2);
    expect(psi([0.5, 0.5], [0, 1])).toBeCloseTo(want, 12);
    expect(Number.isFinite(psi([0, 1], [1, 0]))).toBe(true);
  });

  test("status bands of spec 4.9: below 0.10 stable, 0.10 to 0.20 moderate, above 0.20 critical", () => {
    expect(driftStatus(0.0999)).toBe("stable");
    expect(driftStatus(0.1)).toBe("moderate");
    expect(driftStatus(0.2)).toBe("moderate");
    expect(driftStatus(0.2001)).toBe("critical");
  });
});

describe("bins", () => {
  const edges = [0, 10, 20, 30, 40];
  test("numpy.histogram's bins, with values outside the training range in the outer bins", () => {
    expect([-5, 0, 9.99, 10, 25, 40, 99].map((v) => binOf(v, edges))).toEqual([0, 0, 0, 1, 2, 3, 3]);
  });

  test("duplicate edges (a feature with ties) leave the zero-width bin empty, as numpy does", () => {
    const tied = [1, 2, 2, 3];
    expect([1, 2, 2.5, 3].map((v) => binOf(v, tied))).toEqual([0, 2, 2, 2]);
    expect(numericFractions([1, 2, 2, 3], tied)).toEqual([0.25, 0, 0.75]);
  });
});

describe("featureDrift", () => {
  test("numeric: the training deciles against logged values", () => {
    const b = { feature: "age", kind: "numeric" as const, bin_edges: [0, 10, 20], bin_fractions: [0.5, 0.5] };
    const rows = [{ age: 1 }, { age: 2 }, { age: 3 }, { age: 15 }, { age: null }];
    const d = featureDrift(b, rows);
    // actual (0.75, 0.25): 0.25 ln(1.5) + (-0.25) ln(0.5) = 0.101366 + 0.173287 = 0.274653
    expect(d).toMatchObject({ feature: "age", psi: 0.274653, status: "critical", values: 4 });
    expect(d?.action).toBe("retraining recommended");
  });

  test("categorical: frequencies, an unseen category in __other__ when the baseline has one", () => {
    const b = { feature: "job", kind: "categorical" as const, frequencies: { a: 0.5, b: 0.4, __other__: 0.1 } };
    const rows = [{ job: "a" }, { job: "b" }, { job: "zzz" }, { job: "a" }, { job: "b" }];
    // actual a 0.4, b 0.4, __other__ 0.2: (-0.1) ln(0.8) + 0 + 0.1 ln(2) = 0.022314 + 0.069315 = 0.091629
    expect(featureDrift(b, rows)).toMatchObject({ psi: 0.091629, status: "stable" });
    const noOther = { feature: "job", kind: "categorical" as const, frequencies: { a: 1 } };
    // a new category without __other__: its own bucket, expected EPSILON
    const d = featureDrift(noOther, [{ job: "a" }, { job: "new" }]);
    const want = (0.5 - 1) * Math.log(0.5) + (0.5 - EPSILON) * Math.log(0.5 / EPSILON);
    expect(d?.psi).toBeCloseTo(want, 5);
  });

  test("no value for the feature: no entry; the overall status is the worst", () => {
    expect(featureDrift({ feature: "x", kind: "numeric", bin_edges: [0, 1], bin_fractions: [1] }, [{}])).toBeNull();
    const f = (status: "stable" | "moderate" | "critical") => ({
      feature: status,
      kind: "numeric" as const,
      psi: 0,
      status,
      action: "",
      values: 1,
    });
    expect(overallStatus([f("stable"), f("moderate")])).toBe("moderate");
    expect(overallStatus([f("critical"), f("moderate")])).toBe("critical");
    expect(overallStatus([])).toBe("stable");
  });
});
