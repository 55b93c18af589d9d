/** fastPredictions: the fast path's scores become the same predictions the OIP path answers. */
import { describe, expect, test } from "bun:test";
import { fastModelOf, fastPredictions } from "./fast-path.ts";
import type { ServingSchema } from "./predict.ts";

const schema = (problemType: string, classes: ServingSchema["classes"]): ServingSchema => ({
  problemType,
  columns: ["a"],
  numeric: new Set(["a"]),
  classes,
});

describe("fastPredictions", () => {
  test("binary: score is p(classes[1]), label 1 at or above the threshold, class the original value", () => {
    const out = fastPredictions(
      schema("classification", [1, 2]),
      {
        probabilities: [
          [0.7, 0.3],
          [0.4, 0.6],
        ],
      },
      0.3,
    );
    expect(out).toEqual([
      { label: 1, score: 0.3, class: 2 },
      { label: 1, score: 0.6, class: 2 },
    ]);
    expect(fastPredictions(schema("classification", ["no", "yes"]), { probabilities: [[0.7, 0.3]] }, 0.5)).toEqual([
      { label: 0, score: 0.3, class: "no" },
    ]);
  });

  test("multi-class: the argmax class and the probabilities by class; regression: the value", () => {
    const out = fastPredictions(schema("classification", ["a", "b", "c"]), { probabilities: [[0.2, 0.5, 0.3]] }, 0.5);
    expect(out).toEqual([{ label: "b", probabilities: { a: 0.2, b: 0.5, c: 0.3 } }]);
    expect(fastPredictions(schema("regression", null), { values: [1.5, -2] }, 0.5)).toEqual([
      { value: 1.5 },
      { value: -2 },
    ]);
  });

  test("a graph whose output does not fit the run is a 500, not a wrong answer", () => {
    expect(() => fastPredictions(schema("classification", [0, 1]), { probabilities: [[1, 0, 0]] }, 0.5)).toThrow(
      "2-class",
    );
    expect(() => fastPredictions(schema("regression", null), { probabilities: [[1]] }, 0.5)).toThrow("no values");
  });
});

describe("fastModelOf", () => {
  test("a converted graph; none for an unsupported run or a malformed record", () => {
    const onnx = { status: "converted", sha256: "ab", path: "/m.onnx", inputs: [{ name: "a", type: "float64" }] };
    expect(fastModelOf({ artifact: { onnx } })).toEqual({
      sha256: "ab",
      path: "/m.onnx",
      inputs: [{ name: "a", type: "float64" }],
    });
    expect(fastModelOf({ artifact: { onnx: { status: "unsupported", reason: "SVC" } } })).toBeNull();
    expect(fastModelOf({ artifact: { onnx: { ...onnx, inputs: [{ name: "a", type: "int8" }] } } })).toBeNull();
    expect(fastModelOf(null)).toBeNull();
  });
});
