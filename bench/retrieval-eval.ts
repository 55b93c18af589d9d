/**
 * Retrieval evaluation (issue 6 item 8, issue 20): nDCG@10, recall@10 and MRR@10 of BM25, dense,
 * every hybrid fusion variant and the learned reranker, over a real per-tenant document index,
 * on finance QA sets with judgments (bench/retrieval-data.ts; BEIR FiQA-2018 is not obtainable).
 *
 *   node_modules/.bin/bun bench/retrieval-eval.ts                      # financebench, finqabench
 *   node_modules/.bin/bun bench/retrieval-eval.ts --dataset tatqa      # larger sets: minutes of CPU
 *   node_modules/.bin/bun bench/retrieval-eval.ts --dataset all
 *
 * Each corpus document is chunked with the service's chunker (domain/documents/chunking.ts,
 * its defaults), embedded with the configured embedder (CAIRN_EMBEDDING_MODEL or
 * CAIRN_EMBEDDINGS_URL, as the service would), and stored with putDocument into a fresh
 * tenant file. Each judged query is searched once per leg and once in the adapter's hybrid mode;
 * the fusion variants and the reranker run on those leg lists (bench/retrieval-fusion.ts). A
 * document's rank is the rank of its best chunk (as BEIR judges documents).
 * Passage and query vectors are cached under ${XDG_CACHE_HOME:-~/.cache}/cairn/retrieval-eval
 * (keyed by model and chunk texts), so a rerun only re-indexes and searches.
 *
 * Prints one JSON line per dataset, the reranker's latency as bench/runner.ts lines (peer: the
 * adapter's hybrid search of the same query), then a summary line. Options: --k-chunks (hits
 * scored per query, default 100), --keep (leave the index file), --dump-features FILE (training
 * rows for lab/src/lab/ranking), --rank-model FILE / --no-rerank. The shipped model was trained
 * on these sets' rows, so its "reranked" numbers are in sample; held-out numbers come from a model
 * trained without the set (--rank-model, see docs/search.md "Hybrid ranking").
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createEmbedder } from "../adapters/embeddings/index.ts";
import { loadConfig } from "../config.ts";
import { chunkBlocks } from "../domain/documents/chunking.ts";
import type { Embedder } from "../domain/documents/ports.ts";
import { checkRankModel, type RankModel, SERVICE_RANK_MODEL } from "../domain/documents/rerank.ts";
import type { Chunk, DocumentMeta, EmbedKind, IndexedChunk } from "../domain/documents/types.ts";
import { DATASETS, type DatasetName, loadRetrievalSet, type RetrievalSet } from "./retrieval-data.ts";
import {
  type ChunkInfo,
  candidatesPerLeg,
  featureRows,
  fusedIds,
  fusionVariants,
  type Metrics,
  type QueryLegs,
  r4,
  rerankedIds,
  scoreRankings,
} from "./retrieval-fusion.ts";
import { openEvalIndex } from "./retrieval-index.ts";
import { emit, round, summarize } from "./runner.ts";

const { values: args } = parseArgs({
  options: {
    dataset: { type: "string", default: "financebench,finqabench" },
    "k-chunks": { type: "string", default: "100" },
    keep: { type: "boolean", default: false },
    /** Append the reranker's training rows (features of the default fusion's top 50) to this JSONL file. */
    "dump-features": { type: "string" },
    /** A rank model (JSON) to evaluate instead of the service's domain/documents/rank-model.json. */
    "rank-model": { type: "string" },
    "no-rerank": { type: "boolean", default: false },
    /** Only fill the vector cache (a long first run, e.g. in the background), then stop. */
    "embed-only": { type: "boolean", default: false },
    /**
     * The keyword leg alone, with no vectors (no embedding at all): BM25 and BM25 + reranker
     * (text features only), for sets whose corpus has not been embedded yet.
     */
    "bm25-only": { type: "boolean", default: false },
  },
});
const K_CHUNKS = Number(args["k-chunks"]);
const model: RankModel | null = args["no-rerank"]
  ? null
  : args["rank-model"]
    ? checkRankModel(JSON.parse(readFileSync(args["rank-model"], "utf8")) as RankModel)
    : SERVICE_RANK_MODEL;

/**
 * Published numbers on the same corpora and judgments, for comparison. None is known for the
 * FinanceRAG re-casts with a BM25 run whose setup matches ours; the BEIR FiQA-2018 BM25 figure
 * the issue names is on a different corpus and is listed only as the reference it asked for.
 */
const REFERENCE = { "beir-fiqa-2018-bm25-ndcg@10": 0.236 };

const names: DatasetName[] =
  args.dataset === "all" ? [...DATASETS] : ((args.dataset ?? "").split(",").map((s) => s.trim()) as DatasetName[]);
for (const n of names)
  if (!DATASETS.includes(n)) throw new Error(`unknown dataset ${n} (one of ${DATASETS.join(", ")})`);

const config = loadConfig();
const embedder = await createEmbedder(config.embeddings);
const results: Record<string, unknown>[] = [];
try {
  for (const name of names) results.push(await evaluate(loadRetrievalSet(name), embedder));
} finally {
  await embedder.close();
}
process.stdout.write(
  `${JSON.stringify({ eval: "retrieval/summary", model: embedder.model, results: results.map(brief), reference: REFERENCE })}\n`,
);

async function evaluate(set: RetrievalSet, e: Embedder): Promise<Record<string, unknown>> {
  const started = performance.now();
  // BEIR indexes title + text; a FinanceRAG title is a filing name such as PEPSICO_2022_10K.
  const docs = set.corpus.map((d) => {
    const title = d.title.replaceAll("_", " ").trim();
    const blocks = d.text.split(/\n+/).map((text) => ({ text }));
    const chunks = chunkBlocks(blocks).map((c) => (title ? { ...c, text: `${title}\n${c.text}` } : c));
    return { doc: d, chunks };
  });
  const allChunks = docs.flatMap((d) => d.chunks.map((c) => c.text));
  const tEmbed = performance.now();
  const BM25_ONLY = args["bm25-only"];
  const zero = new Float32Array(e.dim);
  const passageVecs = BM25_ONLY ? allChunks.map(() => zero) : await cachedEmbed(e, allChunks, "passage");
  const queryVecs = BM25_ONLY
    ? set.queries.map(() => zero)
    : await cachedEmbed(
        e,
        set.queries.map((q) => q.text),
        "query",
      );
  const embedSeconds = (performance.now() - tEmbed) / 1000;
  if (args["embed-only"]) return { dataset: set.name, chunks: allChunks.length, embed_seconds: r4(embedSeconds) };

  const dir = mkdtempSync(join(tmpdir(), "cairn-retrieval-eval-"));
  const index = await openEvalIndex(dir, e.dim);
  try {
    let at = 0;
    const tIndex = performance.now();
    for (const { doc, chunks } of docs) {
      const indexed: IndexedChunk[] = chunks.map((c: Chunk) => ({
        ...c,
        id: `${doc.id}:${c.chunk_index}`,
        embedding: passageVecs[at++] as Float32Array,
      }));
      await index.put(metaOf(doc.id, doc.title), indexed);
    }
    const indexSeconds = (performance.now() - tIndex) / 1000;

    // The two legs once per query (as many candidates as a hybrid top-K_CHUNKS search fetches),
    // then every fusion variant and the reranker from those same lists; the adapter's own
    // hybrid search runs too, and must agree with the harness's default fusion.
    const perMode: Record<string, Metrics> = {};
    const chunkInfo = new Map<string, ChunkInfo>();
    const legsOf: QueryLegs[] = [];
    const perLeg = candidatesPerLeg(K_CHUNKS);
    const adapterHybrid = new Map<number, string[]>();
    const searchMs: number[] = [];
    for (const [qi, q] of set.queries.entries()) {
      const vec = queryVecs[qi] as Float32Array;
      const legs: QueryLegs = { qi, query: q.text, bm25: [], dense: [] };
      for (const mode of BM25_ONLY ? (["bm25"] as const) : (["bm25", "dense"] as const)) {
        for (const h of await index.search(q.text, vec, mode, perLeg)) {
          chunkInfo.set(h.chunk_id, { doc_id: h.doc_id, text: h.text, filename: h.document.filename });
          legs[mode].push({ id: h.chunk_id, score: h.score });
        }
      }
      legsOf.push(legs);
      if (BM25_ONLY) continue;
      const t0 = performance.now();
      adapterHybrid.set(
        qi,
        (await index.search(q.text, vec, "hybrid", K_CHUNKS)).map((h) => h.doc_id),
      );
      searchMs.push(performance.now() - t0);
    }
    const docsOf = (ids: string[]) => ids.map((id) => (chunkInfo.get(id) as ChunkInfo).doc_id);
    perMode.bm25 = scoreRankings(set, (qi) => docsOf(legsOf[qi]?.bm25.slice(0, K_CHUNKS).map((h) => h.id) ?? []));
    perMode.dense = scoreRankings(set, (qi) => docsOf(legsOf[qi]?.dense.slice(0, K_CHUNKS).map((h) => h.id) ?? []));
    if (!BM25_ONLY) perMode["hybrid (adapter default)"] = scoreRankings(set, (qi) => adapterHybrid.get(qi) ?? []);
    for (const v of BM25_ONLY ? [] : fusionVariants()) {
      perMode[v.label] = scoreRankings(set, (qi) => docsOf(fusedIds(legsOf[qi] as QueryLegs, K_CHUNKS, v.opts)));
    }
    let rerankMs: number[] = [];
    if (model) {
      const ranked = legsOf.map((l) => rerankedIds(l, K_CHUNKS, chunkInfo, model));
      rerankMs = ranked.map((r) => r.ms);
      perMode.reranked = scoreRankings(set, (qi) => docsOf(ranked[qi]?.ids ?? []));
    }
    if (args["dump-features"]) {
      // Keyword-only rows are labelled apart ("tatqa/bm25"): their vector-leg features are all 0.
      const label = BM25_ONLY ? `${set.name}/bm25` : set.name;
      const rows = legsOf.flatMap((l) => featureRows(set, l, chunkInfo, label).map((r) => JSON.stringify(r)));
      appendFileSync(args["dump-features"], `${rows.join("\n")}\n`);
    }
    if (e.model === "bge-small-en-v1.5+e5-small-v2" && !BM25_ONLY) {
      // Ablation: each half of a pair vector (times sqrt 2) is that model's own unit vector, so
      // the single models' dense rankings follow from the same vectors (exact cosine, here).
      const chunkDoc = docs.flatMap((d) => d.chunks.map(() => d.doc.id));
      for (const [label, from] of [
        ["dense-bge-small-en-v1.5-alone", 0],
        ["dense-e5-small-v2-alone", 384],
      ] as const) {
        perMode[label] = scoreRankings(set, (qi) => {
          const q = (queryVecs[qi] as Float32Array).subarray(from, from + 384);
          const scored = passageVecs.map((p, i) => ({ i, s: dotRange(q, p, from) }));
          scored.sort((x, y) => y.s - x.s);
          return scored.slice(0, K_CHUNKS).map((x) => chunkDoc[x.i] as string);
        });
      }
    }
    const line = {
      eval: `retrieval/${set.name}`,
      dataset: set.name,
      engine: index.engine,
      model: e.model,
      dim: e.dim,
      corpus_docs: set.corpus.length,
      chunks: allChunks.length,
      judged_queries: set.queries.length,
      k_chunks_per_leg: K_CHUNKS,
      fusion: "labels: method, RRF k, weights bm25:dense; 'hybrid (adapter default)' is the index's own hybrid search",
      modes: perMode,
      seconds: { embed: r4(embedSeconds), index: r4(indexSeconds), total: r4((performance.now() - started) / 1000) },
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    emitQuality(set.name, perMode);
    if (rerankMs.length > 0 && searchMs.length > 0) emitLatency(set.name, rerankMs, searchMs);
    return line;
  } finally {
    await index.close();
    if (args.keep) process.stderr.write(`index kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * nDCG@10 as bench/runner.ts lines for `bun run bench`: each leg as a ceiling, and what the
 * service returns (fusion, then the reranker when one is loaded) against the stronger leg — the
 * issue's bar is "hybrid ≥ each leg".
 */
function emitQuality(name: string, modes: Record<string, Metrics>): void {
  const legs = (["bm25", "dense"] as const).filter((l) => (modes[l]?.["ndcg@10"] ?? 0) > 0);
  for (const l of legs) {
    emit({
      bench: `retrieval-eval/${name}/${l}`,
      metric: "ndcg@10",
      value: modes[l]?.["ndcg@10"] ?? 0,
      unit: "",
      peer: null,
      ratio: null,
    });
  }
  const best = legs.reduce(
    (a, b) => ((modes[b]?.["ndcg@10"] ?? 0) > (modes[a]?.["ndcg@10"] ?? 0) ? b : a),
    legs[0] ?? "bm25",
  );
  const bestValue = modes[best]?.["ndcg@10"] ?? 0;
  for (const label of ["rrf k=60 1:1", "reranked"]) {
    const v = modes[label]?.["ndcg@10"];
    if (v === undefined) continue;
    emit({
      bench: `retrieval-eval/${name}/${label === "reranked" ? "fused+reranked" : "fused (default)"}`,
      metric: "ndcg@10",
      value: v,
      unit: "",
      peer: `retrieval-eval/${name}/${best}`,
      ratio: bestValue === 0 ? null : round(v / bestValue, 4),
    });
  }
}

/** The reranker's cost per query next to the hybrid search it follows (same queries, same run). */
function emitLatency(name: string, rerankMs: number[], searchMs: number[]): void {
  const r = summarize(rerankMs);
  const s = summarize(searchMs);
  for (const p of ["p50", "p99"] as const) {
    emit({
      bench: `retrieval-eval/${name}/rerank-top50`,
      metric: `latency_${p}`,
      value: round(r[p], 3),
      unit: "ms",
      peer: `retrieval-eval/${name}/hybrid-search`,
      ratio: s[p] === 0 ? null : round(r[p] / s[p], 4),
    });
    emit({
      bench: `retrieval-eval/${name}/hybrid-search`,
      metric: `latency_${p}`,
      value: round(s[p], 3),
      unit: "ms",
      peer: null,
      ratio: null,
    });
  }
}

/** A document as uploaded: its filing name (the BEIR title, when there is one) is the filename. */
function metaOf(docId: string, title: string): DocumentMeta {
  return {
    doc_id: docId,
    filename: `${title.replace(/[^\w.-]+/g, "_") || docId}.txt`,
    format: "txt",
    doc_type: "other",
    entity_id: null,
    uploaded_by: "1",
    uploaded_at: new Date(0).toISOString(),
    acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
  };
}

/** Dot product of a 384-wide query half with the same half of a passage vector. */
function dotRange(q: Float32Array, p: Float32Array, from: number): number {
  let s = 0;
  for (let i = 0; i < q.length; i++) s += (q[i] as number) * (p[from + i] as number);
  return s;
}

function brief(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(r).filter(([k]) => ["dataset", "judged_queries", "chunks", "modes"].includes(k)),
  );
}

/**
 * Embeds in slices of 256, caching each slice's vectors on disk keyed by model, kind and texts,
 * so an interrupted run of a large corpus resumes where it stopped.
 */
async function cachedEmbed(e: Embedder, texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
  const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cairn", "retrieval-eval");
  mkdirSync(cacheDir, { recursive: true });
  const out: Float32Array[] = [];
  const t0 = performance.now();
  let embedded = 0;
  for (let i = 0; i < texts.length; i += 256) {
    const slice = texts.slice(i, i + 256);
    const key = createHash("sha256").update(`${e.model}\0${e.dim}\0${kind}\0`).update(slice.join("\0")).digest("hex");
    const file = join(cacheDir, `${key.slice(0, 32)}.f32`);
    const cached = existsSync(file) ? new Float32Array(readFileSync(file).buffer.slice(0)) : null;
    if (cached && cached.length === slice.length * e.dim) {
      for (let j = 0; j < slice.length; j++) out.push(cached.subarray(j * e.dim, (j + 1) * e.dim));
      continue;
    }
    const vecs = await e.embed(slice, kind);
    const flat = new Float32Array(slice.length * e.dim);
    for (const [j, v] of vecs.entries()) flat.set(v, j * e.dim);
    writeFileSync(file, Buffer.from(flat.buffer));
    out.push(...vecs);
    embedded += slice.length;
    const rate = embedded / ((performance.now() - t0) / 1000);
    process.stderr.write(`\r${kind}: ${out.length}/${texts.length} (${rate.toFixed(1)}/s)   `);
  }
  if (embedded > 0) process.stderr.write("\n");
  return out;
}
