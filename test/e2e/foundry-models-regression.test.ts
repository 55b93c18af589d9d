/**
 * Regression end to end through the API from real data (issue 16): California housing
 * (../shared/data/ml/regression, 20,640 rows, nine numeric columns and the text column
 * ocean_proximity) imported as a custom table and built into a dataset; POST /models/train with
 * no problem_type detects regression (a continuous numeric target), trains the roster cut to
 * Ridge, LightGBM and SVR, records SVR as skipped with the 10,000-row reason, picks the winner
 * by lowest MAE, and explains it with tree SHAP over the original columns.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  buildDataset,
  importCsv,
  labWorkerDone,
  type ModelsFixture,
  spawnLabWorker,
  startModelsFixture,
} from "../foundry-models.ts";
import { LAB_PYTHON } from "../lakehouse.ts";
import { sharedData } from "../shared-data.ts";

const DATA = sharedData("ml/regression", "foundry regression");
const COLUMNS = [
  "longitude",
  "latitude",
  "housing_median_age",
  "total_rooms",
  "total_bedrooms",
  "population",
  "households",
  "median_income",
  "ocean_proximity",
];
let fx: ModelsFixture | null = null;
let datasetId: string;

beforeAll(async () => {
  if (!DATA) return;
  fx = await startModelsFixture({ CAIRN_FOUNDRY_TRAIN_ALGORITHMS: "Ridge,LightGBM,SVR" });
  if (!fx) return;
  await importCsv(fx, "california_housing", join(DATA, "california_housing.csv"));
  datasetId = await buildDataset(fx, "housing", "california_housing");
}, 240_000);

afterAll(async () => {
  await fx?.close();
});

interface Algo {
  algorithm: string;
  status: string;
  reason: string | null;
  metrics: Record<string, number> | null;
}

describe.if(existsSync(LAB_PYTHON) && DATA !== undefined)("foundry regression from California housing", () => {
  test("auto-detected regression, SVR skipped above 10,000 rows, winner by lowest MAE, tree SHAP", async () => {
    const f = fx as ModelsFixture;
    const res = await f.post("/v1/foundry/models/train", {
      dataset_id: datasetId,
      name: "house values",
      target_column: "median_house_value",
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await labWorkerDone(spawnLabWorker(f.svc, { once: true }), 420_000)).toContain('"jobs_run": 1');

    const m = (await (await f.get(`/v1/foundry/models/${id}`)).json()) as {
      status: string;
      error: string | null;
      problem_type: string;
      algorithms: Algo[];
      winner: { algorithm: string; metric: string; value: number };
      metrics: Record<string, number>;
      result: { rows: number; problem_type_detected: boolean };
    };
    expect(m.error).toBeNull();
    expect(m.status).toBe("ready");
    expect(m.problem_type).toBe("regression");
    expect(m.result.problem_type_detected).toBe(true);
    expect(m.result.rows).toBe(20_640);

    const byName = new Map(m.algorithms.map((x) => [x.algorithm, x]));
    expect(byName.get("SVR")?.status).toBe("skipped");
    expect(byName.get("SVR")?.reason).toContain("10,000 rows or fewer");
    const trained = m.algorithms.filter((x) => x.status === "trained");
    expect(trained.map((x) => x.algorithm).sort()).toEqual(["LightGBM", "Ridge"]);
    const lowest = Math.min(...trained.map((x) => x.metrics?.mae as number));
    expect(m.winner).toMatchObject({ metric: "mae", value: lowest });
    // Gradient boosting beats a linear model on house values by a wide margin.
    expect(m.winner.algorithm).toBe("LightGBM");
    expect(m.metrics.r2).toBeGreaterThan(0.7);
    expect(m.metrics.mae).toBeLessThan(40_000);

    const shap = (await (await f.get(`/v1/foundry/models/${id}/shap`)).json()) as {
      explainer: string;
      values: { feature: string; mean_abs_shap: number }[];
    };
    expect(shap.explainer).toBe("tree");
    // Values per original column: the one-hot columns of ocean_proximity are summed into one.
    expect(shap.values.length).toBe(COLUMNS.length);
    expect(shap.values.map((v) => v.feature).sort()).toEqual([...COLUMNS].sort());
    expect(shap.values[0]?.feature).toBe("median_income");
  }, 480_000);
});
