/**
 * The keyword leg of the embedded index: FTS5 BM25 over the chunks the caller may see.
 *
 * The ACL stays inside the leg (the best N among permitted chunks, never the best N overall
 * filtered afterwards). It comes from the search's one ACL pass (permitted.ts `admitted`):
 *
 * - a caller whom every document admits, with no filter, takes the FTS5 top N as it is;
 * - anyone else: the leg over-fetches the FTS5 top k' (no join: the MATCH alone), keeps the
 *   candidates whose document is admitted, and grows k' ×4 until N survive or the matches run
 *   out, as the dense leg does for the ANN. k' starts from the permitted fraction, so most
 *   searches take one round. Joining every match to `chunks` to check its document (the form
 *   before) cost one B-tree lookup per *match* — tens of thousands a query — where this costs
 *   one per candidate. Past the candidate cap (a selective filter) the leg scores the
 *   permitted chunks alone: the keyword index given their rowids, or FTS5 checking each match.
 *
 * A leg can run over part of the index: `seqs` bounds the chunk rowids it reads (FTS5 seeks its
 * doclists to the bounds and computes bm25() only inside them, while its IDF still counts the
 * whole index, so the scores of two parts are the scores of the whole). Two parts on two
 * search threads halve a large index's keyword time at low load (search-pool.ts);
 * `combineKeywordParts` merges them into exactly what one pass returns.
 *
 * Who scores: on a large tenant the keyword index (keyword-index.ts, `kw`) — FTS5's postings in
 * flat arrays, giving FTS5's own bm25() scores without FTS5's per-row bm25() call — and FTS5
 * itself otherwise (small tenants, while the index builds, a term FTS5 reads as a phrase, a
 * selective filter past the candidate cap). FTS5 computes bm25() for every chunk holding any
 * query term (no top-k pruning); fts-query.ts drops stop-words and term-df.ts terms most chunks
 * hold for that reason, on both paths alike. Measured in docs/search.md ("Keyword leg",
 * "Keyword index").
 */
import type { Database } from "bun:sqlite";
import type { LegHit } from "../../domain/documents/fusion.ts";
import { matchOf, queryTerms } from "./fts-query.ts";
import { type Bm25Row, ftsTop, type SeqRange } from "./fts5-reads.ts";
import type { KeywordIndex } from "./keyword-index.ts";
import { type Admitted, admitted, docsOf, type LegScope } from "./permitted.ts";
import { pruneCommonTerms } from "./term-df.ts";

// The top itself joins nothing (fts5-reads.ts `ftsTop`): writeDocument writes a chunk and its
// document row in one transaction and removeDocument deletes both, so no chunk lacks its
// document (and hydration joins documents anyway). At 1M chunks the join alone cost ~1 s a query.

// The selective case: the planner runs the MATCH as the outer loop (a virtual table with a
// MATCH is cheap to it), then one rowid lookup in `chunks` and one probe of the admitted set
// per match.
const BM25_CHECKED_SQL = `
  SELECT f.rowid AS seq, bm25(chunks_fts) AS score
    FROM chunks_fts f JOIN chunks c ON c.seq = f.rowid
   WHERE chunks_fts MATCH :match AND f.rowid BETWEEN :lo AND :hi
     AND c.doc_id IN (SELECT value FROM json_each(:docs))
   ORDER BY score LIMIT :limit`;

// The selective case with the keyword index: the permitted chunks, through chunks_doc.
const PERMITTED_SEQS_SQL = "SELECT seq FROM chunks WHERE doc_id IN (SELECT value FROM json_each(:docs))";

/** Candidates per wanted hit before the permitted fraction is applied (ties at the cut). */
const OVERFETCH = 2;
/** Past this many candidates the filter is selective: check every match instead. */
export const MAX_KEYWORD_CANDIDATES = 4096;

/** The whole index. */
export const ALL_SEQS: SeqRange = { lo: Number.MIN_SAFE_INTEGER, hi: Number.MAX_SAFE_INTEGER };

/**
 * One part's answer: its best `limit` hits for the query with the index's common terms pruned
 * (term-df.ts), and — only when the pruned query found fewer than `limit` here — for the full
 * query too. `pruned` is `full` when nothing was pruned.
 */
export interface KeywordPart {
  pruned: LegHit[];
  full: LegHit[] | null;
  prunedIsFull: boolean;
}

/**
 * The best `scope.limit` permitted chunks for `query` by BM25 (higher is better); [] without a
 * term. `acl` is the search's ACL pass; computed here when the caller has none.
 */
export function keywordLeg(
  db: Database,
  scope: LegScope,
  query: string,
  acl?: Admitted,
  kw?: KeywordIndex | null,
): LegHit[] {
  return combineKeywordParts([keywordPart(db, scope, query, acl, ALL_SEQS, kw)], Number(scope.limit));
}

/** The leg over the chunks in `seqs` (all of them by default); see `KeywordPart`. */
export function keywordPart(
  db: Database,
  scope: LegScope,
  query: string,
  acl?: Admitted,
  seqs: SeqRange = ALL_SEQS,
  kw: KeywordIndex | null = null,
): KeywordPart {
  const none: KeywordPart = { pruned: [], full: [], prunedIsFull: true };
  const terms = queryTerms(query);
  if (terms.length === 0) return none;
  const a = acl ?? admitted(db, scope);
  if (!a.everything && a.chunks === 0) return none;
  const want = Number(scope.limit);
  const run = (q: string[]): LegHit[] =>
    // FTS5's bm25() is lower-is-better; negate so every leg's score is higher-is-better.
    (a.everything ? top(db, kw, q, want, seqs) : permittedTop(db, kw, q, want, a, seqs)).map((r) => ({
      id: String(r.seq),
      score: -r.score,
    }));
  const kept = pruneCommonTerms(db, terms, a.total, kw ? (t) => kw.df(db, t) : undefined);
  const rows = run(kept);
  if (kept.length === terms.length) return { pruned: rows, full: rows, prunedIsFull: true };
  return { pruned: rows, full: rows.length < want ? run(terms) : null, prunedIsFull: false };
}

/**
 * The leg's answer from its parts (disjoint ranges of one snapshot's chunks), exactly as one
 * pass over the union would give it: the pruned query's best `want` when the parts found that
 * many; else the full query's, which every part then ran (each found fewer than `want`).
 * Fewer than wanted means the rare terms ran out of permitted chunks, and chunks holding only
 * the common terms are the rest of the answer (at the bottom of it: their IDF is near zero).
 */
export function combineKeywordParts(parts: KeywordPart[], want: number): LegHit[] {
  const best = (lists: LegHit[][]): LegHit[] =>
    lists.length === 1
      ? (lists[0] as LegHit[])
      : lists
          .flat()
          .sort((x, y) => y.score - x.score || Number(x.id) - Number(y.id))
          .slice(0, want);
  const pruned = best(parts.map((p) => p.pruned));
  if (parts.every((p) => p.prunedIsFull) || pruned.length >= want) return pruned;
  return best(parts.map((p) => p.full ?? []));
}

/** The best `limit` chunks in `seqs`: from the keyword index when it can answer, else FTS5. */
function top(db: Database, kw: KeywordIndex | null, terms: string[], limit: number, seqs: SeqRange): Bm25Row[] {
  return kw?.top(db, terms, limit, seqs) ?? ftsTop(db, terms, limit, seqs);
}

function permittedTop(
  db: Database,
  kw: KeywordIndex | null,
  terms: string[],
  want: number,
  a: Admitted,
  seqs: SeqRange,
): Bm25Row[] {
  let k = Math.max(want, Math.ceil((OVERFETCH * want * a.total) / a.chunks));
  while (k <= MAX_KEYWORD_CANDIDATES) {
    const found = top(db, kw, terms, k, seqs);
    const docs = docsOf(
      db,
      found.map((r) => r.seq),
    );
    const kept = found.filter((r) => a.docs.has(docs.get(r.seq) ?? ""));
    if (found.length < k) return kept.slice(0, want); // every match was a candidate
    // The top `want` kept are the permitted top when the k-th candidate scores strictly worse
    // than the last of them (bm25 is lower-is-better): no permitted chunk tied with it was cut.
    if (kept.length >= want && kept[want - 1]!.score < found[k - 1]!.score) return kept.slice(0, want);
    k *= 4;
  }
  if (kw) {
    const only = db
      .query<{ seq: number }, { docs: string }>(PERMITTED_SEQS_SQL)
      .all({ docs: a.docsJson })
      .map((r) => r.seq);
    const rows = kw.top(db, terms, want, seqs, only);
    if (rows) return rows;
  }
  return db
    .query<Bm25Row, Record<string, string | number>>(BM25_CHECKED_SQL)
    .all({ match: matchOf(terms) as string, docs: a.docsJson, limit: want, ...seqs });
}
