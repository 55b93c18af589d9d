/**
 * Parity of the fast path: the lab trains German credit (the real fixture file) with a small
 * roster through its training run, which writes the winner's `<sha256>.onnx` beside the joblib
 * artifact; the lab also scores the whole validation split with the joblib model (plus rows with
 * gaps and an unseen category) and a California housing regressor. OnnxScorer, fed the same rows
 * as JSON, reproduces every probability to 1e-5 (absolute) and every value to 1e-5 (relative).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FastModel, fastModelOf } from "../../domain/foundry/serving/fast-path.ts";
import type { JsonValue } from "../../domain/ports.ts";
import { LAB_PYTHON } from "../../test/lakehouse.ts";
import { OnnxScorer } from "./scorer.ts";
import { MISSING, toCategory, toNumber } from "./tensors.ts";

const ROOT = join(import.meta.dir, "..", "..");

// The lab side: a real training run (small roster) and a directly fitted regressor.
const LAB_SCRIPT = `
import json, sys
import numpy as np, pandas as pd
from sklearn.pipeline import Pipeline
from lab.models import competition as comp
from lab.models.artifacts import load_artifact
from lab.models.onnx_export import onnx_record
from lab.models.preprocess import build_preprocessor
from lab.models.roster import Params, fit, roster
from lab.models.artifacts import TrainedModel
from lab.models.run import train_with_artifact


def main():
    out, german_csv, california_csv = sys.argv[1], sys.argv[2], sys.argv[3]
    frame = pd.read_csv(german_csv, header=None)
    frame.columns = [f"a{i}" for i in range(1, 21)] + ["credit"]
    frame.loc[[3, 40], "a2"] = np.nan  # the imputer learns a missing indicator
    options = {"algorithms": ["XGBoost", "LightGBM", "LogisticRegression"], "n_estimators": 60,
               "shap_rows": 50, "timeout_s": 120, "artifact_dir": out}
    result, _ = train_with_artifact(frame, "credit", options=options)
    model = load_artifact(result["artifact"]["path"], result["artifact"]["sha256"])
    prep = comp.prepare(frame, "credit", None, None)
    _, val_pos = comp.split_positions(prep.y, prep.problem_type, 42)
    val = prep.frame.iloc[val_pos][prep.features].reset_index(drop=True)
    extra = val.iloc[:4].copy().astype(object)
    extra.loc[0, "a1"] = "NEVER-SEEN"; extra.loc[1, "a1"] = None; extra.loc[2, "a5"] = None; extra.loc[3, "a4"] = ""
    rows = pd.concat([val.astype(object), extra], ignore_index=True)
    def records(f):
        return [{k: (None if (v is None or (isinstance(v, float) and np.isnan(v))) else (v.item() if hasattr(v, "item") else v))
                 for k, v in r.items()} for r in f.to_dict(orient="records")]
    cls = {"winner": result["winner"]["algorithm"], "onnx": result["artifact"]["onnx"], "classes": result["classes"],
           "artifact": {k: v for k, v in result["artifact"].items() if k != "base64"},
           "rows": records(rows), "probabilities": model.predict_proba(rows).tolist()}

    cal = pd.read_csv(california_csv).sample(3000, random_state=7).reset_index(drop=True)
    cal.loc[[2, 9], "total_bedrooms"] = np.nan
    prep = comp.prepare(cal, "median_house_value", None, "regression")
    tr, va = comp.split_positions(prep.y, "regression", 42)
    x = prep.frame[prep.features]
    pre = build_preprocessor(prep.kinds).fit(x.iloc[tr])
    algo = next(a for a in roster("regression") if a.name == "LightGBM")
    est = algo.build(Params(seed=42, n_jobs=1, n_estimators=60, class_weight=False))
    fit(algo, est, pre.transform(x.iloc[tr]), prep.y[tr], 42)
    reg = TrainedModel(Pipeline([("preprocess", pre), ("model", est)]), "regression", "median_house_value",
                       prep.features, None, "LightGBM")
    vrows = x.iloc[va].reset_index(drop=True).astype(object)
    vrows.loc[0, "ocean_proximity"] = "ATLANTIS"; vrows.loc[1, "housing_median_age"] = None
    rec = onnx_record(reg, vrows, out)
    json.dump({"classification": cls, "regression": {"onnx": rec, "rows": records(vrows), "values": reg.predict(vrows).tolist()}},
              open(f"{out}/parity.json", "w"))


if __name__ == "__main__":  # the training run spawns processes: guard the script
    main()
`;

interface Parity {
  classification: {
    winner: string;
    onnx: FastModel & { status: string; outputs: { name: string }[] };
    classes: JsonValue[];
    artifact: Record<string, JsonValue>;
    rows: Record<string, JsonValue>[];
    probabilities: number[][];
  };
  regression: { onnx: FastModel & { status: string }; rows: Record<string, JsonValue>[]; values: number[] };
}

let dir = "";
let parity: Parity | undefined;
const scorer = new OnnxScorer({ processes: 2, batchRows: 64, cacheSize: 4 });

beforeAll(async () => {
  if (!existsSync(LAB_PYTHON)) {
    if (process.env.CI) throw new Error(`${LAB_PYTHON} is missing: the lab venv must exist under CI`);
    return;
  }
  dir = mkdtempSync(join(tmpdir(), "cairn-onnx-"));
  const script = join(dir, "parity.py");
  writeFileSync(script, LAB_SCRIPT);
  const california = join(ROOT, "..", "shared", "data", "ml", "regression", "california_housing.csv");
  const proc = Bun.spawn([LAB_PYTHON, script, dir, join(ROOT, "fixtures", "ml", "german_credit.csv"), california], {
    cwd: join(ROOT, "lab"),
    stdout: "inherit",
    stderr: "inherit",
  });
  expect(await proc.exited).toBe(0);
  parity = JSON.parse(readFileSync(join(dir, "parity.json"), "utf8")) as Parity;
}, 600_000);

afterAll(() => {
  scorer.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("OnnxScorer parity with the lab", () => {
  test("German credit: the training run's winner scores the validation split as its joblib model", async () => {
    if (!parity) return;
    const { onnx, rows, probabilities, classes } = parity.classification;
    expect(onnx.status).toBe("converted");
    expect(onnx.path.endsWith(`${onnx.sha256}.onnx`)).toBe(true);
    // What serving reads from the stored RunResult.
    const fast = fastModelOf({ artifact: parity.classification.artifact });
    expect(fast).toEqual({ sha256: onnx.sha256, path: onnx.path, inputs: onnx.inputs });
    expect(fastModelOf({ artifact: { onnx: { status: "unsupported", reason: "SVC" } } })).toBeNull();
    expect(fastModelOf({ artifact: { sha256: "x" } })).toBeNull();
    expect(fastModelOf(null)).toBeNull();
    expect(onnx.inputs.map((i) => i.name)).toEqual(Array.from({ length: 20 }, (_, i) => `a${i + 1}`));
    expect(onnx.inputs.find((i) => i.name === "a1")?.type).toBe("string");
    expect(onnx.inputs.find((i) => i.name === "a2")?.type).toBe("float64");
    expect(rows.length).toBe(204); // 200 validation rows + 4 with gaps and unseen categories
    const got = await scorer.score(fast as FastModel, rows);
    expect(got.values).toBeUndefined();
    expect(got.probabilities?.length).toBe(rows.length);
    let worst = 0;
    got.probabilities?.forEach((row, i) => {
      expect(row.length).toBe(classes.length);
      row.forEach((p, j) => {
        worst = Math.max(worst, Math.abs(p - (probabilities[i]?.[j] ?? Number.NaN)));
      });
    });
    expect(worst).toBeLessThanOrEqual(1e-5);
  }, 120_000);

  test("California housing: a LightGBM regressor's values match to 1e-5 relative", async () => {
    if (!parity) return;
    const { onnx, rows, values } = parity.regression;
    expect(onnx.status).toBe("converted");
    const got = await scorer.score(onnx, rows);
    expect(got.probabilities).toBeUndefined();
    expect(got.values?.length).toBe(values.length);
    let worst = 0;
    got.values?.forEach((v, i) => {
      const want = values[i] ?? Number.NaN;
      worst = Math.max(worst, Math.abs(v - want) / Math.abs(want));
    });
    expect(worst).toBeLessThanOrEqual(1e-5);
  }, 120_000);

  test("single rows and concurrent calls score as the batch does", async () => {
    if (!parity) return;
    const { onnx, rows, probabilities } = parity.classification;
    const singles = await Promise.all(rows.slice(0, 20).map((r) => scorer.score(onnx, [r])));
    singles.forEach((s, i) => {
      expect(Math.abs((s.probabilities?.[0]?.[1] ?? 0) - (probabilities[i]?.[1] ?? 1))).toBeLessThanOrEqual(1e-5);
    });
  }, 120_000);

  test("bytes that do not match the sha256 are refused; a missing file too", async () => {
    if (!parity) return;
    const { onnx, rows } = parity.classification;
    const forged = { ...onnx, sha256: "0".repeat(64) };
    await expect(scorer.score(forged, rows.slice(0, 1))).rejects.toThrow(/hash/);
    const absent = { ...onnx, sha256: "1".repeat(64), path: join(dir, "nope.onnx") };
    await expect(scorer.score(absent, rows.slice(0, 1))).rejects.toThrow(/cannot be read/);
  }, 120_000);

  test("a killed model process fails only its work; the next call starts a new one", async () => {
    if (!parity) return;
    const { onnx, rows } = parity.classification;
    const own = new OnnxScorer({ processes: 1 });
    try {
      await own.score(onnx, rows.slice(0, 2));
      const pid = (own as unknown as { hosts: { proc: { pid: number } }[] }).hosts[0]?.proc.pid;
      expect(typeof pid).toBe("number");
      process.kill(pid as number, "SIGKILL");
      for (let i = 0; i < 100 && own.restarts === 0; i++) await Bun.sleep(20);
      expect(own.restarts).toBe(1);
      const again = await own.score(onnx, rows.slice(0, 2));
      expect(again.probabilities?.length).toBe(2);
    } finally {
      own.close();
    }
  }, 120_000);
});

describe("the input contract", () => {
  test("numbers: missing and unparsable values are NaN, booleans 0/1, datetimes epoch seconds UTC", () => {
    expect(toNumber(3.5)).toBe(3.5);
    expect(toNumber("3.5")).toBe(3.5);
    expect(Number.isNaN(toNumber(null))).toBe(true);
    expect(Number.isNaN(toNumber(undefined))).toBe(true);
    expect(Number.isNaN(toNumber(""))).toBe(true);
    expect(Number.isNaN(toNumber("abc"))).toBe(true);
    expect(toNumber(true)).toBe(1);
    expect(toNumber("2024-01-02T00:00:00", true)).toBe(1704153600);
    expect(toNumber("2024-01-02 00:00:00", true)).toBe(1704153600);
    expect(toNumber("2024-01-02", true)).toBe(1704153600);
    expect(toNumber("2024-01-02T01:00:00+01:00", true)).toBe(1704153600);
  });

  test("categories: null is __missing__, the empty string stays, booleans as Python writes them", () => {
    expect(toCategory(null)).toBe(MISSING);
    expect(toCategory(undefined)).toBe(MISSING);
    expect(toCategory("")).toBe("");
    expect(toCategory("A11")).toBe("A11");
    expect(toCategory(true)).toBe("True");
    expect(toCategory(4)).toBe("4");
  });
});
