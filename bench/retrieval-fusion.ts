/**
 * The fusion variants and the reranker the retrieval evaluation scores (bench/retrieval-eval.ts),
 * all computed from the same two leg candidate lists per query, through the service's own code
 * (domain/documents/fusion.ts, rerank.ts), so a variant's number is what the service would give
 * with that setting. Also the metrics (nDCG@10, recall@10, MRR@10 over documents: a document
 * ranks where its best chunk does, as BEIR judges documents).
 */
import { candidatesPerLeg, DEFAULT_FUSION, type FusionOptions, fuse, type LegHit } from "../domain/documents/fusion.ts";
import { type RankCandidate, rankFeatures } from "../domain/documents/rank-features.ts";
import { type RankModel, RERANK_DEPTH, rerank } from "../domain/documents/rerank.ts";
import type { RetrievalSet } from "./retrieval-data.ts";

export const K = 10;

export interface ChunkInfo {
  doc_id: string;
  text: string;
  filename: string;
}

/** One judged query's two legs (chunk ids, best first, with the leg's own score). */
export interface QueryLegs {
  qi: number;
  query: string;
  bm25: LegHit[];
  dense: LegHit[];
}

export interface Metrics {
  "ndcg@10": number;
  "recall@10": number;
  "mrr@10": number;
}

/** The fusion settings compared; labels say the method, k and weights bm25:dense. */
export function fusionVariants(): { label: string; opts: FusionOptions }[] {
  const out: { label: string; opts: FusionOptions }[] = [];
  const ws = [
    [1, 1],
    [1, 1.5],
    [1, 2],
    [1.5, 1],
    [2, 1],
  ] as const;
  for (const k of [10, 30, 60]) {
    for (const [b, d] of ws)
      out.push({ label: `rrf k=${k} ${b}:${d}`, opts: { method: "rrf", k, weights: { bm25: b, dense: d } } });
  }
  for (const method of ["minmax", "zscore"] as const) {
    for (const [b, d] of ws)
      out.push({ label: `${method} ${b}:${d}`, opts: { method, weights: { bm25: b, dense: d } } });
  }
  return out;
}

/** Chunk ids of the top `limit` for one variant. */
export function fusedIds(legs: QueryLegs, limit: number, opts: FusionOptions): string[] {
  return fuse(legs.bm25, legs.dense, limit, opts).map((f) => f.id);
}

/** The default fusion's candidates as the reranker sees them (fused order, best first). */
export function rerankInput(legs: QueryLegs, limit: number, chunks: Map<string, ChunkInfo>, opts: FusionOptions = {}) {
  return fuse(legs.bm25, legs.dense, limit, opts).map((f) => {
    const c = chunks.get(f.id) as ChunkInfo;
    return {
      id: f.id,
      doc_id: c.doc_id,
      text: c.text,
      filename: c.filename,
      ranks: f.ranks,
    } satisfies RankCandidate & {
      id: string;
      doc_id: string;
    };
  });
}

/** Reranked chunk ids and the time the reranker took (ms) for one query. */
export function rerankedIds(
  legs: QueryLegs,
  limit: number,
  chunks: Map<string, ChunkInfo>,
  model: RankModel,
  opts: FusionOptions = {},
): { ids: string[]; ms: number } {
  const input = rerankInput(legs, limit, chunks, opts);
  const t0 = performance.now();
  const out = rerank(legs.query, input, model);
  const ms = performance.now() - t0;
  return { ids: out.map((o) => o.item.id), ms };
}

/** Training rows: the default fusion's top RERANK_DEPTH with features and a 0/1 label. */
export function featureRows(
  set: RetrievalSet,
  legs: QueryLegs,
  chunks: Map<string, ChunkInfo>,
  label = set.name,
): Record<string, unknown>[] {
  const input = rerankInput(legs, RERANK_DEPTH, chunks);
  const feats = rankFeatures(legs.query, input);
  const q = set.queries[legs.qi] as { id: string };
  const rel = set.qrels.get(q.id) ?? new Set<string>();
  return input.map((c, i) => ({
    set: label,
    qid: q.id,
    doc_id: c.doc_id,
    pos: i + 1,
    label: rel.has(c.doc_id) ? 1 : 0,
    n_rel: rel.size,
    x: feats[i],
  }));
}

export { candidatesPerLeg, DEFAULT_FUSION };

/** nDCG@10, recall@10 and MRR@10 over the judged queries, from each query's chunk-hit documents. */
export function scoreRankings(set: RetrievalSet, docsOfQuery: (qi: number) => string[]): Metrics {
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  for (const [qi, q] of set.queries.entries()) {
    const ranked = [...new Set(docsOfQuery(qi))];
    const rel = set.qrels.get(q.id) ?? new Set<string>();
    ndcg += ndcgAt(ranked, rel, K);
    recall += ranked.slice(0, K).filter((d) => rel.has(d)).length / Math.max(rel.size, 1);
    const first = ranked.slice(0, K).findIndex((d) => rel.has(d));
    mrr += first < 0 ? 0 : 1 / (first + 1);
  }
  const n = set.queries.length;
  return { "ndcg@10": r4(ndcg / n), "recall@10": r4(recall / n), "mrr@10": r4(mrr / n) };
}

function ndcgAt(ranked: string[], rel: Set<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((d, i) => {
    if (rel.has(d)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(rel.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function r4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
