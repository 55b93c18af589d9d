/**
 * Time-series and anomaly models end to end on the embedded profile (spec 4.9; issue 16): real
 * series from ../shared/data/ml imported as custom tables and built into ready datasets, POST
 * /v1/foundry/models/train, the Python lab worker (`--once`) on the service's embedded queue,
 * then GET /v1/foundry/models/{id}:
 *
 * - airline passengers (144 months, a `month` date column): timeseries with the time column
 *   found by its type, Prophet and ARIMA records, the winner by lowest MAE, MAE/RMSE/MASE,
 *   horizon 29 (the last 20%) and frequency MS, SHAP skipped with the reason;
 * - NAB NYC taxi (the full 10,320 half-hours) with `is_anomaly` from NAB's five windows as the
 *   label column: all three detectors scored, IsolationForest preferred for inference,
 *   precision/recall at the labels;
 * - refusals before anything is queued: a timeseries request on a table without a date or
 *   timestamp column, a non-numeric target, too few points (the lab's check on the rows), a
 *   label column on a classification run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { airlinePassengersCsv, nycTaxiCsv } from "../fixtures/foundry-data.ts";
import {
  buildDataset,
  labWorkerDone,
  type ModelsFixture,
  spawnLabWorker,
  startModelsFixture,
} from "../foundry-models.ts";
import { LAB_PYTHON } from "../lakehouse.ts";
import { sharedData } from "../shared-data.ts";
import { waitFor } from "../wait.ts";

const SERIES = sharedData("ml/timeseries", "foundry time-series models");
const ANOMALY = sharedData("ml/anomaly", "foundry anomaly models");
let fx: ModelsFixture | null = null;
let airlineId: string;
let taxiId: string;
let labelled: number;

interface Algo {
  algorithm: string;
  status: string;
  reason: string | null;
  metrics: Record<string, number>;
  seconds: number;
  shap: { status: string; reason: string };
}
interface ModelBody {
  status: string;
  error: string | null;
  problem_type: string;
  feature_columns: string[];
  algorithms: Algo[];
  winner: { algorithm: string; metric: string | null; value: number | null };
  metrics: Record<string, number>;
  time_column: string | null;
  label_column: string | null;
  inference_algorithm: string | null;
  horizon: number | null;
  frequency: string | null;
  artifact: { sha256: string; path: string } | null;
  result: Record<string, unknown>;
}

async function importText(f: ModelsFixture, table: string, csv: string): Promise<void> {
  await f.svc.service.deps.foundry.tables.importFile(f.tenant, table, "replace", {
    bytes: new TextEncoder().encode(csv),
    opts: { format: "csv", header: true, columns: null, delimiter: ",", nullValues: [] },
  });
}

beforeAll(async () => {
  if (!SERIES || !ANOMALY) return;
  fx = await startModelsFixture();
  if (!fx) return;
  await importText(fx, "airline_passengers", airlinePassengersCsv(SERIES));
  const taxi = nycTaxiCsv(ANOMALY);
  labelled = taxi.labelled;
  await importText(fx, "nyc_taxi", taxi.csv);
  airlineId = await buildDataset(fx, "airline", "airline_passengers");
  taxiId = await buildDataset(fx, "taxi", "nyc_taxi");
}, 300_000);

afterAll(async () => {
  await fx?.close();
});

const model = async (f: ModelsFixture, id: string) =>
  (await (await f.get(`/v1/foundry/models/${id}`)).json()) as ModelBody;

describe.if(existsSync(LAB_PYTHON) && SERIES !== undefined && ANOMALY !== undefined)(
  "foundry time-series and anomaly models",
  () => {
    test("airline passengers forecast and NAB taxi anomalies train through the lab worker", async () => {
      const f = fx as ModelsFixture;
      const ts = await f.post("/v1/foundry/models/train", {
        dataset_id: airlineId,
        name: "passengers forecast",
        target_column: "passengers",
        problem_type: "timeseries",
      });
      expect(ts.status).toBe(202);
      const tsId = ((await ts.json()) as { id: string }).id;
      const an = await f.post("/v1/foundry/models/train", {
        dataset_id: taxiId,
        name: "taxi anomalies",
        target_column: "value",
        problem_type: "anomaly",
        label_column: "is_anomaly",
      });
      expect(an.status).toBe(202);
      const anId = ((await an.json()) as { id: string }).id;
      // The time column was resolved before queueing and is the run's only feature column.
      expect((await model(f, tsId)).feature_columns).toEqual(["month"]);

      expect(await labWorkerDone(spawnLabWorker(f.svc, { once: true }), 480_000)).toContain('"jobs_run": 2');

      const t = await model(f, tsId);
      expect(t.error).toBeNull();
      expect(t.status).toBe("ready");
      expect(t.problem_type).toBe("timeseries");
      expect([t.time_column, t.horizon, t.frequency]).toEqual(["month", 29, "MS"]);
      expect(t.algorithms.map((a) => a.algorithm)).toEqual(["Prophet", "ARIMA"]);
      const trained = t.algorithms.filter((a) => a.status === "trained");
      expect(trained.length).toBe(2);
      const best = Math.min(...trained.map((a) => a.metrics.mae as number));
      expect(t.winner).toMatchObject({ metric: "mae", value: best });
      expect(trained.find((a) => a.algorithm === t.winner.algorithm)?.metrics.mae).toBe(best);
      for (const k of ["mae", "rmse", "mase"]) expect(Number.isFinite(t.metrics[k])).toBe(true);
      // Better than repeating last year (the seasonal-naive MASE is 1 by construction on the training part).
      expect(t.metrics.mase).toBeLessThan(1);
      for (const a of t.algorithms) expect(a.shap.reason).toBe("SHAP does not apply to a univariate forecast");
      // The artifact in the local object store is the bytes its hash names.
      const art = t.artifact as { sha256: string; path: string };
      expect(createHash("sha256").update(readFileSync(art.path)).digest("hex")).toBe(art.sha256);
      const tsShap = await f.get(`/v1/foundry/models/${tsId}/shap`);
      expect(tsShap.status).toBe(200);
      expect(await tsShap.json()).toMatchObject({
        algorithm: t.winner.algorithm,
        status: "skipped",
        reason: "SHAP does not apply to a univariate forecast",
        values: [],
      });

      const a = await model(f, anId);
      expect(a.error).toBeNull();
      expect(a.status).toBe("ready");
      expect(a.problem_type).toBe("anomaly");
      expect([a.time_column, a.label_column, a.inference_algorithm]).toEqual([
        "timestamp",
        "is_anomaly",
        "IsolationForest",
      ]);
      expect(a.winner.algorithm).toBe("IsolationForest");
      expect(a.algorithms.map((x) => [x.algorithm, x.status])).toEqual([
        ["IsolationForest", "trained"],
        ["LOF", "trained"],
        ["OneClassSVM", "trained"],
      ]);
      for (const x of a.algorithms) {
        // 5% of 10,320 rows flagged by each detector; precision and recall at NAB's labels.
        expect(x.metrics.flagged).toBe(516);
        expect(x.metrics.labelled_rows).toBe(labelled);
        expect(x.metrics.precision).toBeGreaterThanOrEqual(0);
        expect(x.metrics.recall).toBeGreaterThanOrEqual(0);
        expect(x.shap.reason).toBe("anomaly models are skipped by spec 2.8");
      }
      // Random flags would be right about 10% of the time (the windows hold ~10% of the rows).
      expect(a.metrics.precision).toBeGreaterThan(0.3);
      expect(a.metrics.windows_detected).toBeGreaterThanOrEqual(4);
      expect(a.result.features).toEqual(["value", "value_vs_slot", "value_vs_rolling"]);
      const anShap = (await (await f.get(`/v1/foundry/models/${anId}/shap`)).json()) as Record<string, unknown>;
      expect(anShap).toMatchObject({ status: "skipped", reason: "anomaly models are skipped by spec 2.8" });
    }, 600_000);

    test("refused with 422 before anything is queued: no time column, a non-numeric target, too few points, a misplaced label", async () => {
      const f = fx as ModelsFixture;
      const before = ((await (await f.get("/v1/foundry/models")).json()) as { models: unknown[] }).models.length;
      const post = (body: Record<string, unknown>) =>
        f.post("/v1/foundry/models/train", { dataset_id: f.datasetId, name: "refused", ...body });
      type Detail = { detail: { loc: string[]; msg: string; ctx: Record<string, unknown> }[] };

      // German credit has no date or timestamp column.
      const noTime = await post({ target_column: "credit_amount", problem_type: "timeseries" });
      expect(noTime.status).toBe(422);
      const [first] = ((await noTime.json()) as Detail).detail;
      expect(first?.loc).toEqual(["body", "feature_columns"]);
      expect(first?.msg).toContain("no date or timestamp column");
      expect(first?.ctx.candidates).toEqual([]);
      // A column named as the time column must hold dates or timestamps.
      const notTime = await post({
        target_column: "credit_amount",
        problem_type: "timeseries",
        feature_columns: ["age"],
      });
      expect(notTime.status).toBe(422);
      expect(((await notTime.json()) as Detail).detail[0]?.loc).toEqual(["body", "feature_columns", "0"]);

      const text = await post({ target_column: "checking_status", problem_type: "anomaly" });
      expect(text.status).toBe(422);
      const [textIssue] = ((await text.json()) as Detail).detail;
      expect(textIssue?.loc).toEqual(["body", "target_column"]);
      expect(textIssue?.msg).toContain("is not numeric");
      const textSeries = await f.post("/v1/foundry/models/train", {
        dataset_id: airlineId,
        name: "refused",
        target_column: "month",
        problem_type: "timeseries",
      });
      expect(textSeries.status).toBe(422);
      expect(((await textSeries.json()) as Detail).detail[0]?.msg).toContain("is not numeric");

      // The lab's own check on the rows (POST /foundry/models/check): eight months are too few points.
      const created = (await (
        await f.post("/v1/foundry/datasets", {
          name: "airline 1949",
          source_tables: [{ table: "airline_passengers" }],
          filters: [{ column: "month", op: "<", value: "1949-09-01" }],
        })
      ).json()) as { id: string };
      expect((await f.post(`/v1/foundry/datasets/${created.id}/build`, {})).status).toBe(200);
      await waitFor(
        "the eight-month dataset to build",
        async () => {
          const { datasets } = (await (await f.get("/v1/foundry/datasets")).json()) as {
            datasets: { id: string; status: string }[];
          };
          return datasets.find((x) => x.id === created.id)?.status === "ready";
        },
        { timeoutMs: 60_000, everyMs: 100 },
      );
      const short = await f.post("/v1/foundry/models/train", {
        dataset_id: created.id,
        name: "refused",
        target_column: "passengers",
        problem_type: "timeseries",
      });
      expect(short.status).toBe(422);
      expect(((await short.json()) as Detail).detail[0]?.msg).toContain("at least 10 points");

      const label = await post({ target_column: "class", problem_type: "classification", label_column: "age" });
      expect(label.status).toBe(422);
      expect(((await label.json()) as Detail).detail[0]?.loc).toEqual(["body", "label_column"]);

      expect(((await (await f.get("/v1/foundry/models")).json()) as { models: unknown[] }).models.length).toBe(before);
    }, 120_000);
  },
);
