/**
 * The ONNX fast path alone (adapters/onnx/scorer.ts), the in-process ceiling of bench/predict.ts:
 * single-row latency p50/p99, batch rows/s and the event loop's worst stall while a batch runs,
 * for the German credit winner (the lab trains it here: the fixture file, the roster without SVC
 * — the algorithms the fast path converts — 300 trees). Peer: the same .onnx in a bare
 * onnxruntime-node session on this thread (no IPC, no tensor building from JSON rows, but the
 * event loop blocked while it runs), so the ratio shows what keeping the loop free costs.
 *
 *   node_modules/.bin/bun bench/predict-onnx.ts      (BENCH_QUICK=1 for a smoke run)
 *
 * Knobs: BENCH_ONNX_PROCESSES (default 2), BENCH_ONNX_BATCH (rows per batch, default 100000).
 * Timings on a shared machine move with its load; the first line records the load average.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { OnnxScorer } from "../adapters/onnx/scorer.ts";
import { tensorData, toFeeds } from "../adapters/onnx/tensors.ts";
import type { FastModel } from "../domain/foundry/serving/fast-path.ts";
import type { JsonValue } from "../domain/ports.ts";
import { LAB_PYTHON } from "../test/lakehouse.ts";
import { emit, emitPair, percentile, QUICK, round } from "./runner.ts";

const ROOT = join(import.meta.dir, "..");
const SINGLE = QUICK ? 500 : 5000;
const BATCH = Number(process.env.BENCH_ONNX_BATCH ?? (QUICK ? 20_000 : 100_000));
const PROCESSES = Number(process.env.BENCH_ONNX_PROCESSES ?? 2);

const LAB = `
import json, sys
import numpy as np, pandas as pd
from lab.models import competition as comp
from lab.models.run import train_with_artifact

def main():
    out, csv, trees = sys.argv[1], sys.argv[2], int(sys.argv[3])
    frame = pd.read_csv(csv, header=None)
    frame.columns = [f"a{i}" for i in range(1, 21)] + ["credit"]
    algos = ["XGBoost", "LightGBM", "CatBoost", "RandomForest", "ExtraTrees", "GradientBoosting", "LogisticRegression"]
    result, _ = train_with_artifact(frame, "credit", options={"algorithms": algos, "n_estimators": trees,
        "parallel": 2, "shap_rows": 50, "timeout_s": 300, "artifact_dir": out})
    prep = comp.prepare(frame, "credit", None, None)
    _, val = comp.split_positions(prep.y, prep.problem_type, 42)
    rows = json.loads(prep.frame.iloc[val][prep.features].to_json(orient="records"))
    json.dump({"winner": result["winner"], "onnx": result["artifact"]["onnx"], "rows": rows}, open(f"{out}/run.json", "w"))

if __name__ == "__main__":
    main()
`;

const dir = mkdtempSync(join(tmpdir(), "cairn-bench-onnx-"));
try {
  emit({ bench: "predict-onnx/machine", metric: "cpus", value: cpus().length, unit: "cores", peer: null, ratio: null });
  emit({
    bench: "predict-onnx/machine",
    metric: "load1",
    value: round(loadavg()[0] ?? 0),
    unit: "load",
    peer: null,
    ratio: null,
  });
  writeFileSync(join(dir, "train.py"), LAB);
  const csv = join(ROOT, "fixtures", "ml", "german_credit.csv");
  const lab = Bun.spawn([LAB_PYTHON, join(dir, "train.py"), dir, csv, QUICK ? "60" : "300"], {
    cwd: join(ROOT, "lab"),
    stdout: "ignore",
    stderr: "inherit",
  });
  if ((await lab.exited) !== 0) throw new Error("the lab's training run failed");
  const run = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as {
    winner: { algorithm: string; value: number };
    onnx: FastModel & { status: string; reason?: string; bytes: number };
    rows: Record<string, JsonValue>[];
  };
  if (run.onnx.status !== "converted") throw new Error(`the winner has no ONNX graph: ${run.onnx.reason}`);
  emit({
    bench: `predict-onnx/winner:${run.winner.algorithm}`,
    metric: "onnx_bytes",
    value: run.onnx.bytes,
    unit: "bytes",
    peer: null,
    ratio: null,
  });

  const model: FastModel = run.onnx;
  const rows = run.rows;
  const batch = Array.from({ length: BATCH }, (_, i) => rows[i % rows.length] as Record<string, JsonValue>);

  // The ceiling: one session on this thread, tensors prebuilt.
  const session = await ort.InferenceSession.create(readFileSync(model.path), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  const tensors = (part: Record<string, JsonValue>[]) =>
    Object.fromEntries(
      Object.entries(toFeeds(model.inputs, part)).map(([k, c]) => [
        k,
        new ort.Tensor(c.type, tensorData(c), [part.length, 1]),
      ]),
    );
  const one = tensors([rows[0] as Record<string, JsonValue>]);
  const bare = await latencies(() => session.run(one));
  const bareBatch = tensors(batch);
  const bareRate = await throughput(() => session.run(bareBatch));

  const scorer = new OnnxScorer({ processes: PROCESSES });
  await scorer.start();
  await scorer.score(model, rows); // the model is loaded in the process that took it
  const fast = await latencies(() => scorer.score(model, [rows[0] as Record<string, JsonValue>]));
  const fastRate = await throughput(() => scorer.score(model, batch));

  emitPair(
    { bench: "predict-onnx/scorer/single", value: fast.p50 },
    { bench: "predict-onnx/bare-session/single", value: bare.p50 },
    "p50",
    "us",
  );
  emitPair(
    { bench: "predict-onnx/scorer/single", value: fast.p99 },
    { bench: "predict-onnx/bare-session/single", value: bare.p99 },
    "p99",
    "us",
  );
  emitPair(
    { bench: `predict-onnx/scorer/batch${BATCH}`, value: fastRate.rate },
    { bench: `predict-onnx/bare-session/batch${BATCH}`, value: bareRate.rate },
    "throughput",
    "rows/s",
  );
  // The event loop while a batch runs: the bare session blocks it for the whole run.
  emitPair(
    { bench: `predict-onnx/scorer/batch${BATCH}`, value: fastRate.stall },
    { bench: `predict-onnx/bare-session/batch${BATCH}`, value: bareRate.stall },
    "event_loop_max_stall",
    "ms",
  );
  scorer.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

async function latencies(call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 100; i++) await call(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < SINGLE; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  // Microseconds: a bare session answers one row in tens of them.
  return { p50: round(percentile(times, 50) * 1000, 1), p99: round(percentile(times, 99) * 1000, 1) };
}

/** Rows/s over a few batches, and the longest gap between 1 ms timer ticks meanwhile. */
async function throughput(call: () => Promise<unknown>): Promise<{ rate: number; stall: number }> {
  await call();
  const rounds = QUICK ? 2 : 5;
  let last = performance.now();
  let stall = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const t = performance.now();
  for (let i = 0; i < rounds; i++) await call();
  const seconds = (performance.now() - t) / 1000;
  await Bun.sleep(5);
  clearInterval(tick);
  stall = Math.max(stall, performance.now() - last);
  return { rate: round((rounds * BATCH) / seconds), stall: round(stall, 2) };
}
