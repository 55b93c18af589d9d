/**
 * Document ingest and search (issue 6 item 8), one command:
 *
 *   node_modules/.bin/bun bench/documents-search.ts      (BENCH_QUICK=1: a smaller run)
 *
 * 1. Ingest: every real document under ../shared/data/documents (or test/fixtures/documents)
 *    through the upload path's stages, one document at a time: Extractor (worker pool) ->
 *    chunkDocument -> the real 768-d embedder -> SqliteDocumentIndex.putDocument. Reports
 *    pages/s and chunks/s end to end and each stage's share.
 * 2. Search at BENCH_CHUNKS chunks in one tenant (100,000; 5,000 quick) on the embedded SQLite
 *    index (FTS5 + sqlite-vec) and on OpenSearch (BM25 + Lucene kNN), the same corpus loaded
 *    through the same port (putDocument, 100 chunks per document, mixed ACLs). Text is real:
 *    the ingested chunks plus FinanceRAG corpora chunked by the service's chunker; the
 *    "corpus" lines say how many chunks are distinct. Embedding 100k chunks with the local
 *    model would take hours on this CPU, so only a sample is embedded with the real model;
 *    every other chunk gets a DERIVED vector: a real chunk embedding plus Gaussian noise,
 *    L2-normalised (cosine ~0.8 to its source). Latency of the dense leg depends on the
 *    vector count and width, not on what the vectors mean; relevance is not measured here
 *    (bench/retrieval-eval.ts does that on real embeddings). Queries are real FinanceRAG
 *    questions embedded with the real model once, issued under four access contexts.
 *    Each adapter/mode/concurrency line pairs SQLite (subject) with OpenSearch (peer).
 *
 * OpenSearch: CAIRN_TEST_OPENSEARCH_URL or CAIRN_OPENSEARCH_URL, else `scripts/opensearch.sh
 * start` is run (Java 17 + Maven needed); failing that, the bench stops with the reason.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { OpenSearchDocumentIndex } from "../adapters/docindex/opensearch.ts";
import { SqliteDocumentIndex } from "../adapters/docindex/sqlite.ts";
import { createEmbedder } from "../adapters/embeddings/index.ts";
import { Extractor } from "../adapters/extract/index.ts";
import { loadConfig } from "../config.ts";
import { chunkBlocks, chunkDocument } from "../domain/documents/chunking.ts";
import type { DocumentIndexPort } from "../domain/documents/ports.ts";
import type { AccessContext, DocumentAcl, DocumentMeta, IndexedChunk, SearchMode } from "../domain/documents/types.ts";
import { type DatasetName, loadRetrievalSet } from "./retrieval-data.ts";
import { emit, emitPair, QUICK, round, summarize } from "./runner.ts";

const N = Number(process.env.BENCH_CHUNKS ?? (QUICK ? 5_000 : 100_000));
const REAL_SAMPLE = Number(process.env.BENCH_REAL_EMBEDDINGS ?? (QUICK ? 32 : 384));
const QUERY_COUNT = QUICK ? 16 : 100;
const REQUESTS = QUICK ? 48 : 200;
const CHUNKS_PER_DOC = 100;
const MODES: SearchMode[] = ["bm25", "dense", "hybrid"];
const CONCURRENCY = [1, 8];

const line = (bench: string, metric: string, value: number, unit: string) =>
  emit({ bench, metric, value: round(value), unit, peer: null, ratio: null });

// ---- OpenSearch ----------------------------------------------------------------------------
function openSearchUrl(): string {
  const given = process.env.CAIRN_TEST_OPENSEARCH_URL ?? process.env.CAIRN_OPENSEARCH_URL;
  if (given) return given;
  const repo = resolve(import.meta.dir, "..");
  const r = spawnSync(join(repo, "scripts/opensearch.sh"), ["start"], {
    cwd: repo,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const env = join(repo, ".cairn-test/opensearch.env");
  const url = existsSync(env) ? /CAIRN_TEST_OPENSEARCH_URL=(\S+)/.exec(readFileSync(env, "utf8"))?.[1] : undefined;
  if (r.status !== 0 || !url) {
    throw new Error(
      `bench/documents-search needs OpenSearch: set CAIRN_TEST_OPENSEARCH_URL or CAIRN_OPENSEARCH_URL, or make ` +
        `scripts/opensearch.sh start work (Java 17 + Maven). It said: ${r.stderr?.toString().trim() || `exit ${r.status}`}`,
    );
  }
  return url;
}
const osUrl = openSearchUrl();

// ---- 1. ingest -----------------------------------------------------------------------------
function files(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name !== "README.md")
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch {
    return [];
  }
}
const docsRoot = process.env.CAIRN_SHARED_DATA
  ? join(process.env.CAIRN_SHARED_DATA, "documents")
  : resolve(import.meta.dir, "../../shared/data/documents");
let paths = files(docsRoot);
if (!paths.length) paths = files(resolve(import.meta.dir, "../test/fixtures/documents"));
if (QUICK) paths = paths.filter((_, i) => i % 4 === 0);

const config = loadConfig();
const embedder = await createEmbedder(config.embeddings);
const extractor = new Extractor({ concurrency: 1 });
const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-docsearch-"));
const sqlite = new SqliteDocumentIndex({ dataDir, searchThreads: 2 });
const opensearch = new OpenSearchDocumentIndex({ url: osUrl, indexPrefix: "bench-" });
const ingestTenant = { tenantId: crypto.randomUUID(), slug: "bench-ingest" };
await sqlite.ensureNamespace(ingestTenant);

const ACLS: { acl: DocumentAcl; label: string }[] = [
  {
    label: "tenant_wide",
    acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
  },
  {
    label: "tenant_wide",
    acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
  },
  {
    label: "tenant_wide",
    acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
  },
  {
    label: "deal",
    acl: { visibility: "deal_private", allowed_identity_ids: ["1", "2"], allowed_roles: [], barrier_id: null },
  },
  {
    label: "team",
    acl: { visibility: "team_only", allowed_identity_ids: [], allowed_roles: ["analyst"], barrier_id: null },
  },
  {
    label: "barrier",
    acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: "b1" },
  },
];
function meta(docId: string, filename: string, format: string, i: number): DocumentMeta {
  return {
    doc_id: docId,
    filename,
    format,
    doc_type: i % 3 === 0 ? "research_note" : "other",
    entity_id: i % 5 === 0 ? "320193" : null,
    uploaded_by: "1",
    uploaded_at: new Date().toISOString(),
    acl: ACLS[i % ACLS.length]!.acl,
  };
}

// Warm the extractor worker and the embedder before timing.
await extractor.extract({ filename: paths[0]!, bytes: new Uint8Array(readFileSync(paths[0]!)) }).catch(() => {});
await embedder.embed(["warm up"], "passage");

const stage = { extract: 0, chunk: 0, embed: 0, write: 0 };
let pages = 0;
const realChunks: { text: string; embedding: Float32Array }[] = [];
const ingestStart = performance.now();
for (const [i, p] of paths.entries()) {
  let t = performance.now();
  const doc = await extractor.extract({ filename: p, bytes: new Uint8Array(readFileSync(p)) }).catch(() => null);
  stage.extract += performance.now() - t;
  if (!doc) continue; // a sample the service would refuse (422) is not part of the throughput
  pages += doc.pages;
  t = performance.now();
  const chunks = chunkDocument(doc);
  stage.chunk += performance.now() - t;
  t = performance.now();
  const vectors: Float32Array[] = [];
  for (let b = 0; b < chunks.length; b += 32)
    vectors.push(
      ...(await embedder.embed(
        chunks.slice(b, b + 32).map((c) => c.text),
        "passage",
      )),
    );
  stage.embed += performance.now() - t;
  const docId = `ingest-${i}`;
  const indexed = chunks.map((c, j) => ({ ...c, id: `${docId}:${c.chunk_index}`, embedding: vectors[j]! }));
  t = performance.now();
  await sqlite.putDocument(ingestTenant, meta(docId, p, doc.format, i), indexed);
  stage.write += performance.now() - t;
  for (const c of indexed) realChunks.push({ text: c.text, embedding: c.embedding });
}
const ingestS = (performance.now() - ingestStart) / 1000;
line("documents-search/ingest/corpus", "documents", paths.length, "docs");
line("documents-search/ingest/corpus", "pages", pages, "pages");
line("documents-search/ingest/corpus", "chunks", realChunks.length, "chunks");
line("documents-search/ingest/end-to-end", "pages_per_second", pages / ingestS, "pages/s");
line("documents-search/ingest/end-to-end", "chunks_per_second", realChunks.length / ingestS, "chunks/s");
for (const [name, ms] of Object.entries(stage)) {
  line(`documents-search/ingest/${name}`, "seconds", ms / 1000, "s");
  line(`documents-search/ingest/${name}`, "chunks_per_second", realChunks.length / (ms / 1000), "chunks/s");
}
line("documents-search/ingest/extract", "pages_per_second", pages / (stage.extract / 1000), "pages/s");
await extractor.close();
await sqlite.dropNamespace(ingestTenant);

// ---- 2. the search corpus ------------------------------------------------------------------
const seen = new Set<string>(realChunks.map((c) => c.text));
const texts: string[] = [...seen];
const SETS: DatasetName[] = ["financebench", "finqabench", "tatqa", "finqa", "convfinqa"];
for (const set of SETS) {
  if (texts.length >= N) break;
  for (const d of loadRetrievalSet(set).corpus) {
    if (texts.length >= N) break;
    const blocks = `${d.title ? `${d.title}\n` : ""}${d.text}`.split(/\n+/).map((text) => ({ text }));
    for (const c of chunkBlocks(blocks)) {
      if (texts.length >= N) break;
      if (!seen.has(c.text)) {
        seen.add(c.text);
        texts.push(c.text);
      }
    }
  }
}
const distinct = texts.length;
// Only if the real text runs out: repeat it, each copy marked so no two chunks are identical.
for (let i = 0; texts.length < N; i++) texts.push(`${texts[i % distinct]} (copy ${Math.floor(i / distinct) + 1})`);
texts.length = Math.min(texts.length, N);

const realVec = new Map<number, Float32Array>();
realChunks.forEach((c, i) => {
  if (i < N) realVec.set(i, c.embedding);
});
// A real sample beyond the ingested documents, spread over the corpus.
const extra = Math.max(0, REAL_SAMPLE);
const step = Math.max(1, Math.floor((N - realChunks.length) / Math.max(1, extra)));
const sampleIdx: number[] = [];
for (let i = realChunks.length; i < N && sampleIdx.length < extra; i += step) sampleIdx.push(i);
for (let b = 0; b < sampleIdx.length; b += 32) {
  const ids = sampleIdx.slice(b, b + 32);
  const vs = await embedder.embed(
    ids.map((i) => texts[i]!),
    "passage",
  );
  for (const [j, i] of ids.entries()) realVec.set(i, vs[j]!);
}
const bases = [...realVec.values()];
let seed = 42;
function gauss(): number {
  // mulberry32 + Box-Muller: the derived vectors are the same every run.
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
}
const SIGMA = 0.027; // noise norm ~0.75 against a unit vector: cosine ~0.8 to the source
function derived(i: number): Float32Array {
  const base = bases[i % bases.length]!;
  const v = new Float32Array(base.length);
  let norm = 0;
  for (let j = 0; j < v.length; j++) {
    v[j] = base[j]! + SIGMA * gauss();
    norm += v[j]! * v[j]!;
  }
  norm = Math.sqrt(norm);
  for (let j = 0; j < v.length; j++) v[j]! /= norm;
  return v;
}
const vectors = texts.map((_, i) => realVec.get(i) ?? derived(i));
line("documents-search/corpus", "chunks_per_tenant", N, "chunks");
line("documents-search/corpus", "distinct_real_text_chunks", Math.min(distinct, N), "chunks");
line("documents-search/corpus", "real_model_embeddings", realVec.size, "chunks");
line("documents-search/corpus", "derived_vectors_real_plus_noise", N - realVec.size, "chunks");

const docs: { meta: DocumentMeta; chunks: IndexedChunk[] }[] = [];
for (let d = 0; d * CHUNKS_PER_DOC < N; d++) {
  const docId = `doc-${d}`;
  const chunks: IndexedChunk[] = [];
  for (let j = 0; j < CHUNKS_PER_DOC && d * CHUNKS_PER_DOC + j < N; j++) {
    const i = d * CHUNKS_PER_DOC + j;
    chunks.push({ chunk_index: j, text: texts[i]!, id: `${docId}:${j}`, embedding: vectors[i]! });
  }
  docs.push({ meta: meta(docId, `${docId}.txt`, "txt", d), chunks });
}

// Real questions, embedded once with the real model.
const questions = [...loadRetrievalSet("tatqa").queries, ...loadRetrievalSet("finqabench").queries]
  .filter((_, i) => i % 7 === 0)
  .slice(0, QUERY_COUNT)
  .map((q) => q.text);
const qvecs: Float32Array[] = [];
for (const q of questions) qvecs.push((await embedder.embed([q], "query"))[0]!);
await embedder.close();

const searchTenant = { tenantId: crypto.randomUUID(), slug: "bench-search" };
const contexts: AccessContext[] = [
  { tenantId: searchTenant.tenantId, identityId: "1", roles: ["analyst"], barriers: [] },
  { tenantId: searchTenant.tenantId, identityId: "2", roles: [], barriers: ["b1"] },
  { tenantId: searchTenant.tenantId, identityId: "3", roles: ["viewer"], barriers: [] },
  { tenantId: searchTenant.tenantId, identityId: "4", roles: ["analyst"], barriers: ["b1"] },
];

interface Result {
  p50: number;
  p99: number;
  mean: number;
  qps: number;
}
async function load(idx: DocumentIndexPort & { ensureNamespace(t: typeof searchTenant): Promise<string> }) {
  await idx.ensureNamespace(searchTenant);
  const t0 = performance.now();
  for (const d of docs) await idx.putDocument(searchTenant, d.meta, d.chunks);
  return N / ((performance.now() - t0) / 1000);
}
async function measure(idx: DocumentIndexPort, mode: SearchMode, concurrency: number): Promise<Result> {
  const lat: number[] = [];
  let next = 0;
  const one = async (i: number) => {
    const q = i % questions.length;
    const t = performance.now();
    await idx.search(searchTenant, {
      query: questions[q]!,
      embedding: mode === "bm25" ? undefined : qvecs[q],
      access: contexts[i % contexts.length]!,
      filters: {},
      k: 10,
      mode,
    });
    lat.push(performance.now() - t);
  };
  for (let i = 0; i < Math.min(8, questions.length); i++) await one(i); // warm caches
  lat.length = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < REQUESTS) await one(next++);
    }),
  );
  const s = summarize(lat);
  return { p50: s.p50, p99: s.p99, mean: s.mean, qps: REQUESTS / ((performance.now() - t0) / 1000) };
}

const results = new Map<string, Result>();
const loads: Record<string, number> = {};
for (const [name, idx] of [
  ["sqlite", sqlite],
  ["opensearch", opensearch],
] as const) {
  loads[name] = await load(idx);
  for (const mode of MODES)
    for (const c of CONCURRENCY) results.set(`${name}/${mode}/c${c}`, await measure(idx, mode, c));
  await idx.dropNamespace(searchTenant);
}
emitPair(
  { bench: "documents-search/load/sqlite", value: loads.sqlite! },
  { bench: "documents-search/load/opensearch", value: loads.opensearch! },
  "rows_per_second",
  "chunks/s",
);
for (const mode of MODES)
  for (const c of CONCURRENCY) {
    const s = results.get(`sqlite/${mode}/c${c}`)!;
    const o = results.get(`opensearch/${mode}/c${c}`)!;
    const b = (a: string) => `documents-search/${mode}/c${c}/${a}`;
    emitPair({ bench: b("sqlite"), value: s.p50 }, { bench: b("opensearch"), value: o.p50 }, "p50_ms", "ms");
    emitPair({ bench: b("sqlite"), value: s.p99 }, { bench: b("opensearch"), value: o.p99 }, "p99_ms", "ms");
    emitPair({ bench: b("sqlite"), value: s.mean }, { bench: b("opensearch"), value: o.mean }, "mean_ms", "ms");
    emitPair({ bench: b("sqlite"), value: s.qps }, { bench: b("opensearch"), value: o.qps }, "qps", "req/s");
  }
await sqlite.close();
await opensearch.close();
rmSync(dataDir, { recursive: true, force: true });
