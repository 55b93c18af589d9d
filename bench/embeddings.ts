/**
 * Local embedding speed on this CPU: passages/s while ingesting (real 10-K text, chunked by the
 * service's chunker, ~1000 characters each) and the latency of one query, for the service's
 * 768-d pair (bge-small-en-v1.5 + e5-small-v2). Peer: bge-small-en-v1.5 alone, the cost of one
 * 384-d model, so the ratio shows what the second model costs.
 *
 *   node_modules/.bin/bun bench/embeddings.ts        (BENCH_QUICK=1 for a smoke run)
 *
 * Knobs: CAIRN_EMBEDDING_THREADS, CAIRN_EMBEDDING_BATCH (as the service reads them). Timings on
 * a shared machine move with its load; the first line records the load average at the start.
 */
import { cpus, loadavg } from "node:os";
import { COMPONENTS, type ComponentModel, EMBEDDING_MODELS, OnnxEmbedder } from "../adapters/embeddings/index.ts";
import { loadConfig } from "../config.ts";
import { chunkBlocks } from "../domain/documents/chunking.ts";
import { loadRetrievalSet } from "./retrieval-data.ts";
import { emit, emitPair, percentile, QUICK, round } from "./runner.ts";

const config = loadConfig();
if (config.embeddings.kind !== "onnx")
  throw new Error("bench/embeddings measures the local models; unset CAIRN_EMBEDDINGS_URL");
const { modelsDir, threads, batchSize } = config.embeddings;

const passages = loadRetrievalSet("finqabench")
  .corpus.flatMap((d) => chunkBlocks(d.text.split(/\n+/).map((text) => ({ text }))))
  .map((c) => c.text)
  .slice(0, QUICK ? 16 : 96);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const queries = loadRetrievalSet("finqabench")
  .queries.map((q) => q.text)
  .slice(0, QUICK ? 5 : 40);

emit({ bench: "embeddings/machine", metric: "cpus", value: cpus().length, unit: "cores", peer: null, ratio: null });
emit({
  bench: "embeddings/machine",
  metric: "load1",
  value: round(loadavg()[0] ?? 0),
  unit: "load",
  peer: null,
  ratio: null,
});

/**
 * Both embedders stay loaded and are measured in alternating rounds, so a burst of load from
 * other work on a shared machine hits both alike; the median round is reported.
 */
interface Subject {
  label: string;
  e: OnnxEmbedder;
  rates: number[];
  lat: number[];
}

async function measureRound(s: Subject): Promise<void> {
  const t0 = performance.now();
  await s.e.embed(passages, "passage");
  s.rates.push(passages.length / ((performance.now() - t0) / 1000));
  for (const q of queries) {
    const t = performance.now();
    await s.e.embed([q], "query");
    s.lat.push(performance.now() - t);
  }
}

const make = async (label: string, components: readonly ComponentModel[]): Promise<Subject> => {
  const e = await OnnxEmbedder.create({ modelsDir, components, threads, batchSize });
  await e.embed(passages.slice(0, 4), "passage"); // warm-up: first-run graph allocations
  return { label, e, rates: [], lat: [] };
};
const singleS = await make("embeddings/bge-small-en-v1.5", [COMPONENTS["bge-small-en-v1.5"]]);
const pairS = await make("embeddings/bge-small+e5-small-768d", EMBEDDING_MODELS["bge-small-en-v1.5+e5-small-v2"]);
try {
  for (let r = 0; r < ROUNDS; r++) {
    await measureRound(singleS);
    await measureRound(pairS);
  }
} finally {
  await Promise.all([singleS.e.close(), pairS.e.close()]);
}
const summary = (s: Subject) => {
  const lat = [...s.lat].sort((a, b) => a - b);
  const rates = [...s.rates].sort((a, b) => a - b);
  return { label: s.label, passagesPerSec: percentile(rates, 50), p50: percentile(lat, 50), p99: percentile(lat, 99) };
};
const single = summary(singleS);
const pair = summary(pairS);
emitPair(
  { bench: `${pair.label}/ingest`, value: pair.passagesPerSec },
  { bench: `${single.label}/ingest`, value: single.passagesPerSec },
  "throughput",
  "passages/s",
);
emitPair(
  { bench: `${pair.label}/query`, value: pair.p50 },
  { bench: `${single.label}/query`, value: single.p50 },
  "p50",
  "ms",
);
emitPair(
  { bench: `${pair.label}/query`, value: pair.p99 },
  { bench: `${single.label}/query`, value: single.p99 },
  "p99",
  "ms",
);
