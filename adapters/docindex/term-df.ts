/**
 * Document-frequency pruning of keyword queries: the stop-word rule (fts-query.ts) generalised
 * to the index at hand. FTS5 computes bm25() for every chunk holding any query term, so one
 * term that a large share of the chunks hold ("2019" in a corpus of annual reports) makes a
 * query cost nearly a scan of the index, while its IDF — log((N − df + ½)/(df + ½)) in FTS5 —
 * is small: at most ln(0.7/0.3) ≈ 0.85 above MAX_DF_FRACTION, against ≥ 2.2 for a term in
 * under a tenth of the chunks, and FTS5 clamps it to 1e-6 above N/2. A query term held by more
 * than MAX_DF_FRACTION of the chunks is dropped when a rarer term that some chunk holds
 * remains; a query of common terms only keeps them all (as a query of stop-words only does).
 * The keyword leg searches the full query again when the pruned one finds fewer than it needs,
 * so a chunk holding only common terms is still found when nothing better is. Between the
 * fraction and N/2 a dropped term's small IDF no longer separates the chunks the rarer terms
 * find, so some near-ties reorder: an approximation, kept because no judged set loses more
 * than 0.002 nDCG@10 by it.
 *
 * The fraction is set by nDCG (bench/retrieval-eval.ts, every FinanceRAG set, before and
 * after: no set may lose more than 0.005) and by latency on the 100k corpus; docs/search.md
 * "Keyword leg" has both.
 *
 * A term's frequency is counted once per handle and index version (capped at the threshold, so
 * a common term costs no more than the threshold's worth of doclist) and cached until a commit.
 * Commits are noticed without a statement where the handle's file is in WAL mode: a change
 * watcher over its wal-index header (adapters/sql/wal-watch.ts), made on the handle's first
 * pruned query from `db.filename` — so neither the handle openers nor the callers change, and
 * a handle never searched by keyword maps nothing. The header is rewritten by every commit,
 * this connection's own included (term-df.test.ts proves both), which is what `total_changes()`
 * covered before. Handles without one (in memory, not WAL) key the cache by a statement as
 * before: `PRAGMA data_version` (another connection committed) and `total_changes()` (this one
 * wrote). Either way any commit by any connection empties the cache.
 *
 * The watcher sees the header now, while a search reads its own snapshot (searchSnapshot's read
 * transaction began at the ACL pass), which may predate a commit the watcher just reported. So
 * the counts taken in the call that noticed a change are used but not kept: the next call runs
 * in a snapshot that began after that check, and keeps what it counts only if nothing changed
 * since. (Unlike `total_changes()`, the header does not move on a write not yet committed; no
 * caller prunes inside its own write transaction.)
 */
import type { Database } from "bun:sqlite";
// Not through ../sql/index.ts: that would load the PostgreSQL client into every search thread.
import { type ChangeWatcher, WalHeader } from "../sql/wal-watch.ts";

/** A term in more than this fraction of the chunks is dropped next to rarer terms. */
export const MAX_DF_FRACTION = 0.3;

const DF_SQL = `
  SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH :term LIMIT :cap)`;
const VERSION_SQL = "SELECT (SELECT data_version FROM pragma_data_version) || ':' || total_changes() AS v";

interface Cache {
  version: string;
  df: Map<string, number>;
}
const caches = new WeakMap<Database, Cache>();
/** Per handle: its commit watcher, or null where it has none (then VERSION_SQL keys the cache). */
const watchers = new WeakMap<Database, ChangeWatcher | null>();

/**
 * `terms` less those held by more than MAX_DF_FRACTION of `total` chunks, unless none is left.
 * `exact` gives a term's frequency when the caller has it at hand (the keyword index), in place
 * of counting it here; null from it means "count it".
 */
export function pruneCommonTerms(
  db: Database,
  terms: string[],
  total: number,
  exact?: (term: string) => number | null,
): string[] {
  if (terms.length < 2 || MAX_DF_FRACTION >= 1) return terms;
  const cap = Math.floor(MAX_DF_FRACTION * total) + 1;
  const known = exact ? null : dfCache(db);
  const count = db.query<{ n: number }, { term: string; cap: number }>(DF_SQL);
  const rare = terms.filter((t) => {
    let df = exact?.(t) ?? known?.get(t);
    if (df === undefined) {
      df = count.get({ term: `"${t}"`, cap })?.n ?? 0;
      known?.set(t, df);
    }
    return df > 0 && df < cap; // a term no chunk holds is no rarer term to search by
  });
  return rare.length > 0 ? rare : terms;
}

/**
 * The handle's commit watcher, made once (null: none can be, the statement keys the cache).
 * Exported for the tests, which prove the WAL handles take the watcher path.
 */
export function commitWatcher(db: Database): ChangeWatcher | null {
  let w = watchers.get(db);
  if (w === undefined) {
    w = openWatcher(db);
    watchers.set(db, w);
  }
  return w;
}

/** The counts kept for `db` (for the tests, which show a commit empties them); never mutate. */
export function keptCounts(db: Database): ReadonlyMap<string, number> | undefined {
  return caches.get(db)?.df;
}

/** The df counts valid for what `db` reads now; counts added to a throwaway map are not kept. */
function dfCache(db: Database): Map<string, number> {
  const watcher = commitWatcher(db);
  let version = "watched";
  if (watcher) {
    if (watcher.changed()) {
      caches.delete(db);
      return new Map(); // this call's snapshot may predate the change: see the module comment
    }
  } else {
    version = db.query<{ v: string }, []>(VERSION_SQL).get()?.v ?? "";
  }
  let cache = caches.get(db);
  if (!cache || cache.version !== version) {
    cache = { version, df: new Map() };
    caches.set(db, cache);
  }
  return cache.df;
}

function openWatcher(db: Database): ChangeWatcher | null {
  const file = db.filename;
  if (!file || file === ":memory:") return null;
  // The read makes this connection open the wal-index, which it then holds (the DMS lock) until
  // it closes: while it does, SQLite never truncates the -shm file, so the mapping stays valid.
  db.query("SELECT count(*) FROM sqlite_master").get();
  const mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
  if (mode !== "wal") return null;
  return WalHeader.open(file, () => isOpen(db))?.watcher() ?? null;
}

/** bun:sqlite has no closed flag; `inTransaction` (no statement) throws once the handle closed. */
function isOpen(db: Database): boolean {
  try {
    return typeof db.inTransaction === "boolean";
  } catch {
    return false;
  }
}
