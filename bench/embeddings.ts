/**
 * Local embedding speed and quality on this CPU, for the service's 768-d pair
 * (bge-small-en-v1.5 + e5-small-v2), real 10-K text chunked by the service's chunker:
 *
 * - throughput (passages/s while ingesting, and passages per CPU second of the model
 *   processes, which moves much less with other people's load) and the latency of one query
 *   (p50, p99) against the peer: the fp32 weights in one process with every core (the service
 *   before issue 20). Subjects: int8 in that same shape, int8 as one single-threaded process
 *   per core, and the configured pool when it differs, so the ratios separate what
 *   quantisation and the pool shape each give;
 * - quality: cosine between the int8 and the fp32 vector of the same text, over 200 real
 *   chunks (mean, p1, min) and over the queries. The bar for making int8 the default is a
 *   mean of at least 0.99 (docs/embeddings.md).
 *
 *   node_modules/.bin/bun bench/embeddings.ts        (BENCH_QUICK=1 for a smoke run)
 *
 * Knobs: CAIRN_EMBEDDING_PROCESSES, CAIRN_EMBEDDING_THREADS, CAIRN_EMBEDDING_BATCH (as the
 * service reads them). Subjects run in alternating rounds, so load from other work on a shared
 * machine hits all alike; the first lines record the cores and the load average at the start.
 */
import { cpus, loadavg } from "node:os";
import { EMBEDDING_MODELS, OnnxEmbedder, type Precision } from "../adapters/embeddings/index.ts";
import { loadConfig } from "../config.ts";
import { chunkBlocks } from "../domain/documents/chunking.ts";
import { childrenCpuSeconds } from "./cpu-time.ts";
import { loadRetrievalSet } from "./retrieval-data.ts";
import { emit, emitPair, percentile, QUICK, round } from "./runner.ts";

const config = loadConfig();
if (config.embeddings.kind !== "onnx")
  throw new Error("bench/embeddings measures the local models; unset CAIRN_EMBEDDINGS_URL");
const { modelsDir, processes, threads, batchSize } = config.embeddings;
const components = EMBEDDING_MODELS["bge-small-en-v1.5+e5-small-v2"];
const CORES = cpus().length;

const set = loadRetrievalSet("finqabench");
const chunks = set.corpus.flatMap((d) => chunkBlocks(d.text.split(/\n+/).map((text) => ({ text })))).map((c) => c.text);
const passages = chunks.slice(0, QUICK ? 16 : 96);
const qualityChunks = chunks.slice(0, QUICK ? 32 : 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const queries = set.queries.map((q) => q.text).slice(0, QUICK ? 5 : 40);

const note = (bench: string, metric: string, value: number, unit: string) =>
  emit({ bench, metric, value: round(value, 4), unit, peer: null, ratio: null });
note("embeddings/machine", "cpus", CORES, "cores");
note("embeddings/machine", "load1", loadavg()[0] ?? 0, "load");

interface Subject {
  label: string;
  e: OnnxEmbedder;
  rates: number[];
  lat: number[];
  /** Passages embedded and CPU seconds the model processes spent on them (load-robust). */
  embedded: number;
  cpuS: number;
}

async function measureRound(s: Subject): Promise<void> {
  const cpu0 = childrenCpuSeconds(s.e.pids);
  const t0 = performance.now();
  await s.e.embed(passages, "passage");
  s.rates.push(passages.length / ((performance.now() - t0) / 1000));
  s.cpuS += childrenCpuSeconds(s.e.pids) - cpu0;
  s.embedded += passages.length;
  for (const q of queries) {
    const t = performance.now();
    await s.e.embed([q], "query");
    s.lat.push(performance.now() - t);
  }
}

const make = async (label: string, precision: Precision, procs: number, thr: number): Promise<Subject> => {
  const e = await OnnxEmbedder.create({ modelsDir, components, precision, processes: procs, threads: thr, batchSize });
  await e.embed(passages.slice(0, 4), "passage"); // warm-up: first-run graph allocations
  return { label, e, rates: [], lat: [], embedded: 0, cpuS: 0 };
};
// The peer (fp32, one process with every core: the service before issue 20), int8 in the same
// shape, int8 as one single-threaded process per core, and the configured pool when it is
// neither of those.
const fp32 = await make(`embeddings/fp32-1x${CORES}`, "fp32", 1, CORES);
const int8One = await make(`embeddings/int8-1x${CORES}`, "int8", 1, CORES);
const int8PerCore = await make(`embeddings/int8-${CORES}x1`, "int8", CORES, 1);
const configured = [`1x${CORES}`, `${CORES}x1`].includes(`${processes}x${threads}`)
  ? null
  : await make(`embeddings/int8-${processes}x${threads}`, "int8", processes, threads);
const int8Pool = configured ?? (processes === 1 ? int8One : int8PerCore);
const subjects = [fp32, int8One, int8PerCore, ...(configured ? [configured] : [])];

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);
async function agreement(texts: string[], kind: "passage" | "query"): Promise<number[]> {
  const [a, b] = await Promise.all([fp32.e.embed(texts, kind), int8Pool.e.embed(texts, kind)]);
  return a.map((v, i) => dot(v, b[i] as Float32Array)).sort((x, y) => x - y);
}

try {
  for (let r = 0; r < ROUNDS; r++) for (const s of subjects) await measureRound(s);
  // Vectors are unit length, so the dot product is the cosine.
  for (const [kind, cos] of [
    ["passage", await agreement(qualityChunks, "passage")],
    ["query", await agreement(queries, "query")],
  ] as const) {
    const bench = `embeddings/int8-vs-fp32/${kind}`;
    note(bench, "texts", cos.length, "texts");
    note(bench, "mean_cosine", cos.reduce((s, x) => s + x, 0) / cos.length, "cosine");
    note(bench, "p1_cosine", percentile(cos, 1), "cosine");
    note(bench, "min_cosine", cos[0] ?? Number.NaN, "cosine");
  }
} finally {
  await Promise.all(subjects.map((s) => s.e.close()));
}

const summary = (s: Subject) => {
  const lat = [...s.lat].sort((a, b) => a - b);
  const rates = [...s.rates].sort((a, b) => a - b);
  return {
    label: s.label,
    passagesPerSec: percentile(rates, 50),
    perCpuSecond: s.embedded / s.cpuS,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
  };
};
const peer = summary(fp32);
for (const s of subjects.slice(1).map(summary)) {
  emitPair(
    { bench: `${s.label}/ingest`, value: s.perCpuSecond },
    { bench: `${peer.label}/ingest`, value: peer.perCpuSecond },
    "passages_per_cpu_second",
    "passages/cpu-s",
  );
  emitPair(
    { bench: `${s.label}/ingest`, value: s.passagesPerSec },
    { bench: `${peer.label}/ingest`, value: peer.passagesPerSec },
    "throughput",
    "passages/s",
  );
  emitPair({ bench: `${s.label}/query`, value: s.p50 }, { bench: `${peer.label}/query`, value: peer.p50 }, "p50", "ms");
  emitPair({ bench: `${s.label}/query`, value: s.p99 }, { bench: `${peer.label}/query`, value: peer.p99 }, "p99", "ms");
}
