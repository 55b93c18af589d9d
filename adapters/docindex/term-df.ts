/**
 * Document-frequency pruning of keyword queries: the stop-word rule (fts-query.ts) generalised
 * to the index at hand. FTS5 computes bm25() for every chunk holding any query term, so one
 * term that most chunks hold ("2019" in a corpus of annual reports) makes a query cost as much
 * as a scan of the index, while its IDF — log((N − df + ½)/(df + ½)) in FTS5 — is near zero,
 * and at df > N/2 FTS5 clamps it to 1e-6: it barely moves the ranking. A query term held by
 * more than MAX_DF_FRACTION of the chunks is dropped when a rarer term that some chunk holds
 * remains; a query of common terms only keeps them all (as a query of stop-words only does).
 * The keyword leg searches the full query again when the pruned one finds fewer than it needs,
 * so a chunk holding only common terms is still found when nothing better is.
 *
 * The fraction is set by nDCG (bench/retrieval-eval.ts --bm25-only --dataset all, before and
 * after: no set may lose more than 0.005) and by latency on the 100k corpus; docs/search.md
 * "Keyword leg" has both.
 *
 * A term's frequency is counted once per handle and index version (capped at the threshold, so
 * a common term costs no more than the threshold's worth of doclist) and cached: the handle's
 * `PRAGMA data_version` (another connection committed) and `total_changes()` (this one wrote)
 * key the cache, so a write empties it.
 */
import type { Database } from "bun:sqlite";

/** A term in more than this fraction of the chunks is dropped next to rarer terms. */
export const MAX_DF_FRACTION = 0.5;

const DF_SQL = `
  SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH :term LIMIT :cap)`;
const VERSION_SQL = "SELECT (SELECT data_version FROM pragma_data_version) || ':' || total_changes() AS v";

interface Cache {
  version: string;
  df: Map<string, number>;
}
const caches = new WeakMap<Database, Cache>();

/** `terms` less those held by more than MAX_DF_FRACTION of `total` chunks, unless none is left. */
export function pruneCommonTerms(db: Database, terms: string[], total: number): string[] {
  if (terms.length < 2 || MAX_DF_FRACTION >= 1) return terms;
  const cap = Math.floor(MAX_DF_FRACTION * total) + 1;
  const version = db.query<{ v: string }, []>(VERSION_SQL).get()?.v ?? "";
  let cache = caches.get(db);
  if (!cache || cache.version !== version) {
    cache = { version, df: new Map() };
    caches.set(db, cache);
  }
  const count = db.query<{ n: number }, { term: string; cap: number }>(DF_SQL);
  const rare = terms.filter((t) => {
    let df = cache.df.get(t);
    if (df === undefined) {
      df = count.get({ term: `"${t}"`, cap })?.n ?? 0;
      cache.df.set(t, df);
    }
    return df > 0 && df < cap; // a term no chunk holds is no rarer term to search by
  });
  return rare.length > 0 ? rare : terms;
}
