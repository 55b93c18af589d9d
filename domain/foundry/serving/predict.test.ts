/** Rows to V2 tensors and V2 outputs to predictions (predict.ts), per problem type. */
import { describe, expect, test } from "bun:test";
import { AppError } from "../../errors.ts";
import { checkRows, forecastFrom, inferInputs, predictionsFrom, servingSchema } from "./predict.ts";

const binary = servingSchema({
  problem_type: "classification",
  features: ["age", "job"],
  feature_kinds: { numeric: ["age"], categorical: ["job"] },
  classes: [1, 2],
});

function issues(fn: () => void): { loc: string[]; msg: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).issues ?? [];
  }
  throw new Error("no error");
}

describe("rows", () => {
  test("unknown and missing columns are named; a numeric feature takes a number or null", () => {
    const got = issues(() =>
      checkRows(binary, [{ age: 30, job: "A1", shoe: 1 }, { job: "A2" }, { age: "x", job: null }], "rows"),
    );
    expect(got.map((i) => [i.loc.join("."), i.msg])).toEqual([
      ["body.rows.0", "unknown feature column(s): shoe"],
      ["body.rows.1", "missing feature column(s): age"],
      ["body.rows.2.age", "age must be a number or null"],
    ]);
    expect(() => checkRows(binary, [{ age: null, job: 3 }], "rows")).not.toThrow();
  });

  test("one tensor per column: FP64 with null for missing, BYTES as text", () => {
    expect(
      inferInputs(binary, [
        { age: 30, job: "A1" },
        { age: null, job: 7 },
      ]),
    ).toEqual([
      { name: "age", datatype: "FP64", shape: [2], data: [30, null] },
      { name: "job", datatype: "BYTES", shape: [2], data: ["A1", "7"] },
    ]);
  });

  test("anomaly rows carry the scored inputs and the time column (as text)", () => {
    const s = servingSchema({
      problem_type: "anomaly",
      inputs: ["value"],
      features: ["value", "dev"],
      time_column: "ts",
    });
    expect(s.columns).toEqual(["value", "ts"]);
    expect(inferInputs(s, [{ value: 1.5, ts: "2026-01-01" }]).map((i) => i.datatype)).toEqual(["FP64", "BYTES"]);
  });
});

describe("outputs", () => {
  const out = (name: string, data: unknown[]) => ({
    name,
    datatype: "FP64",
    shape: [data.length],
    data: data as never[],
  });

  test("binary: the positive class's probability against the threshold, and the original class", () => {
    const outputs = [out("classes", ["1", "2"]), out("probabilities", [0.7, 0.3, 0.2, 0.8]), out("label", ["1", "2"])];
    expect(predictionsFrom(binary, outputs, 2, 0.5)).toEqual([
      { label: 0, score: 0.3, class: 1 },
      { label: 1, score: 0.8, class: 2 },
    ]);
    expect(predictionsFrom(binary, outputs, 2, 0.3).map((p) => p.label)).toEqual([1, 1]); // score >= threshold
  });

  test("multi-class, regression, anomaly and a forecast", () => {
    const multi = servingSchema({ problem_type: "classification", features: [], classes: ["a", "b", "c"] });
    const probs = out("probabilities", [0.1, 0.7, 0.2]);
    expect(
      predictionsFrom(multi, [out("classes", ['"a"', '"b"', '"c"']), probs, out("label", ['"b"'])], 1, 0.5),
    ).toEqual([{ label: "b", probabilities: { a: 0.1, b: 0.7, c: 0.2 } }]);
    const reg = servingSchema({ problem_type: "regression", features: [] });
    expect(predictionsFrom(reg, [out("value", [1.5])], 1, 0.5)).toEqual([{ value: 1.5 }]);
    const an = servingSchema({ problem_type: "anomaly", inputs: ["v"] });
    expect(predictionsFrom(an, [out("score", [-0.6]), out("flag", [true])], 1, 0.5)).toEqual([
      { score: -0.6, flag: true },
    ]);
    expect(forecastFrom([out("ds", ["2026-01-01T00:00:00"]), out("yhat", [3])])).toEqual([
      { ds: "2026-01-01T00:00:00", yhat: 3 },
    ]);
  });
});
