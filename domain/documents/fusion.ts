/**
 * Fusion of the keyword and vector legs of hybrid search, shared by every index adapter so
 * that both rank alike. Two families, chosen by `FusionOptions.method`:
 *
 * - Weighted reciprocal rank fusion (Cormack, Clarke & Büttcher 2009), "rrf":
 *     score(chunk) = Σ_leg  weight_leg / (k + rank_leg(chunk))
 *   with 1-based ranks and nothing from a leg that did not return the chunk.
 * - Weighted score fusion over normalised leg scores, "minmax" or "zscore":
 *     score(chunk) = Σ_leg  weight_leg · norm_leg(score_leg(chunk))
 *   where each leg's scores are normalised over that leg's own candidates (BM25 and cosine
 *   live on unrelated scales, and BM25's scale differs between engines), so only the shape
 *   of each leg's score curve matters: a leg whose best hit stands far above the rest says
 *   so, which rank fusion throws away. See `normalise` for the edge cases.
 *
 * The default (DEFAULT_FUSION) was chosen on the FinanceRAG evaluation by the average over
 * its sets, not per set (docs/search.md "Hybrid ranking", docs/decisions.md). Ties are
 * broken by the better single-leg rank, then by id, so results are deterministic.
 */
import type { SearchMode } from "./types.ts";

export const RRF_K = 60;
export const DEFAULT_WEIGHTS = { bm25: 1, dense: 1 } as const;

export type FusionMethod = "rrf" | "minmax" | "zscore";

/** The service's hybrid fusion when a request names none (see the module comment). */
export const DEFAULT_FUSION: { method: FusionMethod; k: number } = { method: "rrf", k: RRF_K };

/** How many candidates each leg fetches for a top-k hybrid query. */
export function candidatesPerLeg(k: number): number {
  return Math.min(Math.max(k * 4, 50), 1000);
}

export interface LegHit {
  id: string;
  /** The leg's own score, higher is better (negated BM25, cosine similarity...). */
  score: number;
}

export interface Fused {
  id: string;
  score: number;
  ranks: { bm25: number | null; dense: number | null };
}

export interface FusionOptions {
  weights?: { bm25: number; dense: number };
  /** RRF's rank constant (method "rrf" only). */
  k?: number;
  method?: FusionMethod;
}

type Leg = "bm25" | "dense";

/** Fuses the two legs (each best first) and returns the top `limit`, best first. */
export function fuse(bm25: LegHit[], dense: LegHit[], limit: number, opts: FusionOptions = {}): Fused[] {
  const method = opts.method ?? DEFAULT_FUSION.method;
  const k = opts.k ?? DEFAULT_FUSION.k;
  const w = opts.weights ?? DEFAULT_WEIGHTS;
  const byId = new Map<string, Fused>();
  const legScores: Record<Leg, Map<string, number>> = { bm25: new Map(), dense: new Map() };
  const add = (leg: Leg, hits: LegHit[]) => {
    hits.forEach((h, i) => {
      let f = byId.get(h.id);
      if (!f) {
        f = { id: h.id, score: 0, ranks: { bm25: null, dense: null } };
        byId.set(h.id, f);
      }
      if (f.ranks[leg] !== null) return; // a leg lists each chunk once; keep its best rank
      f.ranks[leg] = i + 1;
      legScores[leg].set(h.id, h.score);
    });
  };
  add("bm25", bm25);
  add("dense", dense);
  if (method === "rrf") {
    for (const f of byId.values()) {
      for (const leg of ["bm25", "dense"] as const) {
        const r = f.ranks[leg];
        if (r !== null) f.score += w[leg] / (k + r);
      }
    }
  } else {
    for (const leg of ["bm25", "dense"] as const) {
      const norm = normalise(legScores[leg], method);
      for (const f of byId.values()) f.score += w[leg] * (norm.of.get(f.id) ?? norm.missing);
    }
  }
  const best = (f: Fused) =>
    Math.min(f.ranks.bm25 ?? Number.POSITIVE_INFINITY, f.ranks.dense ?? Number.POSITIVE_INFINITY);
  return [...byId.values()]
    .sort((a, b) => b.score - a.score || best(a) - best(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, Math.max(0, limit));
}

/** Weighted RRF (kept by name: tests and benches compare against it). */
export function fuseRrf(bm25: LegHit[], dense: LegHit[], limit: number, opts: FusionOptions = {}): Fused[] {
  return fuse(bm25, dense, limit, { ...opts, method: "rrf", k: opts.k ?? RRF_K });
}

/**
 * One leg's scores mapped onto a common scale, and the value a chunk the leg did not return
 * gets. min-max: [0, 1], missing = 0 (below the leg's worst candidate, which also maps to 0:
 * the leg cannot tell them apart); all-equal scores map to 1 (each is the leg's best), so a leg
 * with one candidate or only ties still counts for presence. z-score: (s − mean) / sd, missing
 * = the leg's lowest z; sd = 0 maps everything to 0 (the leg says nothing). Non-finite scores
 * are treated as the leg's worst.
 */
export function normalise(
  scores: Map<string, number>,
  method: "minmax" | "zscore",
): { of: Map<string, number>; missing: number } {
  const finite = [...scores.values()].filter(Number.isFinite);
  const of = new Map<string, number>();
  if (finite.length === 0) {
    for (const id of scores.keys()) of.set(id, 0);
    return { of, missing: 0 };
  }
  const min = Math.min(...finite);
  if (method === "minmax") {
    const span = Math.max(...finite) - min;
    for (const [id, s] of scores) of.set(id, !Number.isFinite(s) ? 0 : span === 0 ? 1 : (s - min) / span);
    return { of, missing: 0 };
  }
  const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
  const sd = Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / finite.length);
  const z = (s: number) => (sd === 0 ? 0 : (s - mean) / sd);
  for (const [id, s] of scores) of.set(id, z(Number.isFinite(s) ? s : min));
  return { of, missing: z(min) };
}

/**
 * The final ranking for a mode: hybrid fuses; a single-leg mode keeps that leg's order and
 * its own score (the other leg's rank stays null).
 */
export function rankForMode(
  mode: SearchMode,
  bm25: LegHit[],
  dense: LegHit[],
  limit: number,
  opts: FusionOptions = {},
): Fused[] {
  if (mode === "hybrid") return fuse(bm25, dense, limit, opts);
  const leg = mode === "bm25" ? bm25 : dense;
  return leg.slice(0, limit).map((h, i) => ({
    id: h.id,
    score: h.score,
    ranks: mode === "bm25" ? { bm25: i + 1, dense: null } : { bm25: null, dense: i + 1 },
  }));
}

/** Validates tunable weights: finite, non-negative, not both zero. */
export function checkWeights(w: { bm25: number; dense: number }): string | null {
  for (const [name, v] of Object.entries(w)) {
    if (!Number.isFinite(v) || v < 0) return `weight ${name} must be a finite number >= 0, got ${v}`;
  }
  if (w.bm25 === 0 && w.dense === 0) return "at least one weight must be positive";
  return null;
}
