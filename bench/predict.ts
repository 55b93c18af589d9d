/**
 * Predict through the API (issue 17 "bench/predict.ts"; docs/foundry-serving.md "Numbers"): the
 * German credit winner trained by the lab worker through the API (the roster the fast path
 * converts: no SVC), deployed on MLServer, then over real HTTP on loopback:
 *
 * - api/fast: POST /v1/foundry/models/{id}/predict on a service with the ONNX fast path (default);
 * - api/oip: the same call on a second service on the same data with CAIRN_FOUNDRY_FAST_PATH=off;
 * - mlserver/infer: MLServer's /v2/models/{name}/infer called directly (the OIP path's ceiling);
 * - scorer: OnnxScorer in this process on the run's graph (the fast path's ceiling; its own
 *   bench, bench/predict-onnx.ts, has the bare-session numbers too).
 *
 * Each: single-row latency p50/p99 (one request at a time) and 1,000-row batches in rows/s (the
 * API's largest batch). JSON lines (runner.ts format). Nothing asserts on timings.
 *
 *   node_modules/.bin/bun bench/predict.ts        (BENCH_QUICK=1: LogisticRegression only, fewer calls)
 *
 * Knobs: BENCH_PREDICT_ALGORITHMS (the roster), BENCH_PREDICT_SINGLE (calls per latency sample).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { OnnxScorer } from "../adapters/onnx/scorer.ts";
import { GERMAN_CREDIT_COLUMNS } from "../cli/foundry-demo.ts";
import { fastModelOf } from "../domain/foundry/serving/fast-path.ts";
import { servedName } from "../domain/foundry/serving/model.ts";
import { inferInputs, servingSchema } from "../domain/foundry/serving/predict.ts";
import type { JsonValue } from "../domain/ports.ts";
import { labWorkerDone, type ModelsFixture, spawnLabWorker, startModelsFixture } from "../test/foundry-models.ts";
import { startTestService, type TestService } from "../test/harness.ts";
import { type MlserverHandle, startMlserver } from "../test/serving.ts";
import { waitFor } from "../test/wait.ts";
import { emit, emitPair, percentile, QUICK, round } from "./runner.ts";

const ROOT = join(import.meta.dir, "..");
const SINGLE = Number(process.env.BENCH_PREDICT_SINGLE ?? (QUICK ? 300 : 2000));
const BATCH = 1000;
const BATCH_ROUNDS = QUICK ? 5 : 30;
const ALGORITHMS =
  process.env.BENCH_PREDICT_ALGORITHMS ??
  (QUICK
    ? "LogisticRegression"
    : "XGBoost,LightGBM,CatBoost,RandomForest,ExtraTrees,GradientBoosting,LogisticRegression");

type Row = Record<string, JsonValue>;

const repository = mkdtempSync(join(tmpdir(), "cairn-bench-mlserver-"));
let ml: MlserverHandle | undefined;
let fx: ModelsFixture | null = null;
let oipSvc: TestService | null = null;
const servers: { stop(force?: boolean): void }[] = [];
const scorer = new OnnxScorer({ processes: 1 });
try {
  emit({ bench: "predict/machine", metric: "cpus", value: cpus().length, unit: "cores", peer: null, ratio: null });
  emit({
    bench: "predict/machine",
    metric: "load1",
    value: round(loadavg()[0] ?? 0),
    unit: "load",
    peer: null,
    ratio: null,
  });
  ml = await startMlserver(repository);
  if (!ml) throw new Error("MLServer needs lab/.venv-serve (scripts/setup.sh --serve)");
  fx = await startModelsFixture({
    CAIRN_FOUNDRY_TRAIN_ALGORITHMS: ALGORITHMS,
    CAIRN_RATE_LIMIT_SCALE: "1000000",
    ...ml.env,
  });
  if (!fx) throw new Error("the lab's Python is missing (scripts/setup.sh)");
  const f = fx;
  const trained = await f.post("/v1/foundry/models/train", {
    dataset_id: f.datasetId,
    name: "credit",
    target_column: "class",
  });
  const modelId = ((await trained.json()) as { id: string }).id;
  await labWorkerDone(spawnLabWorker(f.svc, { once: true }), 900_000);
  const model = (await (await f.get(`/v1/foundry/models/${modelId}`)).json()) as {
    status: string;
    error: string | null;
    winner: { algorithm: string; value: number };
    result: Record<string, JsonValue>;
  };
  if (model.status !== "ready") throw new Error(`training ended ${model.status}: ${model.error}`);
  const fastModel = fastModelOf(model.result);
  if (!fastModel) throw new Error(`the winner ${model.winner.algorithm} has no ONNX graph: no fast path to measure`);
  emit({
    bench: `predict/winner:${model.winner.algorithm}`,
    metric: "auc",
    value: round(model.winner.value, 4),
    unit: "",
    peer: null,
    ratio: null,
  });

  if ((await f.post(`/v1/foundry/models/${modelId}/deploy`, { model_name: "credit" })).status !== 202) {
    throw new Error("deploy refused");
  }
  const schema = servingSchema(model.result);
  const rows = csvRows(schema.numeric);
  const batch = Array.from({ length: BATCH }, (_, i) => rows[i % rows.length] as Row);
  await waitFor(
    "the deployment to answer",
    async () => (await f.post(`/v1/foundry/models/${modelId}/predict`, { rows: rows.slice(0, 1) })).status === 200,
    { timeoutMs: 180_000, everyMs: 250 },
  );

  // Both services over real HTTP on loopback, as a client sees them.
  oipSvc = await startTestService(
    { ...ml.env, CAIRN_FOUNDRY_FAST_PATH: "off", CAIRN_RATE_LIMIT_SCALE: "1000000" },
    { dataDir: f.svc.service.config.dataDir, tenantSlug: f.tenant.slug },
  );
  const oipAuth = `Bearer ${await oipSvc.token("analyst@models.test", "enterprise")}`;
  const apiOf = (svc: TestService, authorization: string) => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: svc.service.fetch });
    servers.push(server);
    const url = `http://127.0.0.1:${server.port}/v1/foundry/models/${modelId}/predict`;
    return async (part: Row[], want: string) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ rows: part }),
      });
      const body = (await res.json()) as { served_by?: string; predictions?: unknown[] };
      if (res.status !== 200 || body.served_by !== want || body.predictions?.length !== part.length) {
        throw new Error(`predict answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
    };
  };
  const fastApi = apiOf(f.svc, f.headers.authorization as string);
  const oipApi = apiOf(oipSvc, oipAuth);
  const inferUrl = `${ml.url}/v2/models/${encodeURIComponent(servedName({ tenant_id: f.tenant.tenantId, model_name: "credit" }))}/infer`;
  const infer = async (part: Row[]) => {
    const res = await fetch(inferUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ inputs: inferInputs(schema, part) }),
    });
    if (res.status !== 200) throw new Error(`MLServer answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await res.json();
  };
  const direct = (part: Row[]) => scorer.score(fastModel, part);

  const one = [rows[0] as Row];
  const sides = [
    { name: "api/fast", call: (p: Row[]) => fastApi(p, "onnx") },
    { name: "api/oip", call: (p: Row[]) => oipApi(p, "oip") },
    { name: "mlserver/infer", call: infer },
    { name: "scorer", call: direct },
  ];
  const single: Record<string, { p50: number; p99: number }> = {};
  const rate: Record<string, number> = {};
  for (const s of sides) {
    single[s.name] = await latencies(() => s.call(one));
    rate[s.name] = await throughput(() => s.call(batch));
  }
  const lat = (side: string) => single[side] as { p50: number; p99: number };
  for (const [subject, peer] of [
    ["api/fast", "scorer"],
    ["api/oip", "mlserver/infer"],
    ["api/fast", "api/oip"],
  ] as const) {
    for (const q of ["p50", "p99"] as const) {
      emitPair(
        { bench: `predict/${subject}/single`, value: lat(subject)[q] },
        { bench: `predict/${peer}/single`, value: lat(peer)[q] },
        q,
        "ms",
      );
    }
    emitPair(
      { bench: `predict/${subject}/batch${BATCH}`, value: rate[subject] as number },
      { bench: `predict/${peer}/batch${BATCH}`, value: rate[peer] as number },
      "throughput",
      "rows/s",
    );
  }
} finally {
  scorer.close();
  for (const s of servers) s.stop(true);
  await oipSvc?.close();
  await fx?.close();
  await ml?.stop();
  rmSync(repository, { recursive: true, force: true });
}

/** German credit's rows as the API takes them: numbers for the model's numeric features. */
function csvRows(numeric: Set<string>): Row[] {
  const text = readFileSync(join(ROOT, "fixtures/ml/german_credit.csv"), "utf8").trim();
  return text.split("\n").map((line) => {
    const cells = line.split(",");
    const row: Row = {};
    GERMAN_CREDIT_COLUMNS.forEach((c, i) => {
      if (c !== "class") row[c] = numeric.has(c) ? Number(cells[i]) : (cells[i] as string);
    });
    return row;
  });
}

/** One call at a time; milliseconds. */
async function latencies(call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 50; i++) await call(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < SINGLE; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50), 3), p99: round(percentile(times, 99), 3) };
}

/** Rows/s over BATCH_ROUNDS sequential batches. */
async function throughput(call: () => Promise<unknown>): Promise<number> {
  await call();
  const t = performance.now();
  for (let i = 0; i < BATCH_ROUNDS; i++) await call();
  return round((BATCH_ROUNDS * BATCH) / ((performance.now() - t) / 1000));
}
