/**
 * Weighted reciprocal rank fusion (Cormack, Clarke & Büttcher 2009) of the keyword and
 * vector legs of hybrid search, shared by every index adapter so that both rank alike:
 *
 *   score(chunk) = Σ_leg  weight_leg / (k + rank_leg(chunk))
 *
 * with 1-based ranks and a leg contributing nothing when the chunk is not among its
 * candidates. k = 60 is the paper's constant: it damps the head of each list so that one
 * leg's first place does not drown the other's agreement. Ties are broken by the better
 * single-leg rank, then by id, so results are deterministic. See docs/search.md.
 */
import type { SearchMode } from "./types.ts";

export const RRF_K = 60;
export const DEFAULT_WEIGHTS = { bm25: 1, dense: 1 } as const;

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
  k?: number;
}

/** Fuses the two legs (each best first) and returns the top `limit`, best first. */
export function fuseRrf(bm25: LegHit[], dense: LegHit[], limit: number, opts: FusionOptions = {}): Fused[] {
  const k = opts.k ?? RRF_K;
  const w = opts.weights ?? DEFAULT_WEIGHTS;
  const byId = new Map<string, Fused>();
  const add = (leg: "bm25" | "dense", hits: LegHit[], weight: number) => {
    hits.forEach((h, i) => {
      const rank = i + 1;
      let f = byId.get(h.id);
      if (!f) {
        f = { id: h.id, score: 0, ranks: { bm25: null, dense: null } };
        byId.set(h.id, f);
      }
      if (f.ranks[leg] !== null) return; // a leg lists each chunk once; keep its best rank
      f.ranks[leg] = rank;
      f.score += weight / (k + rank);
    });
  };
  add("bm25", bm25, w.bm25);
  add("dense", dense, w.dense);
  const best = (f: Fused) =>
    Math.min(f.ranks.bm25 ?? Number.POSITIVE_INFINITY, f.ranks.dense ?? Number.POSITIVE_INFINITY);
  return [...byId.values()]
    .sort((a, b) => b.score - a.score || best(a) - best(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, Math.max(0, limit));
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
  if (mode === "hybrid") return fuseRrf(bm25, dense, limit, opts);
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
