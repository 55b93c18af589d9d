/**
 * The keyword leg of the embedded index: FTS5 BM25 over the chunks the caller may see.
 *
 * The ACL stays inside the leg (the best N among permitted chunks, never the best N overall
 * filtered afterwards), but it is checked per FTS hit rather than by listing every permitted
 * chunk: the documents admitting the caller are materialised once (documents are ~100× fewer
 * than chunks), and each hit's document is probed against that set through its chunk row. The
 * old form, `+rowid IN (PERMITTED)`, built the list of every permitted chunk seq on each query
 * (~1M at 1M chunks, over a second), whatever the query matched; this one costs in proportion
 * to the matches. A caller whom every document admits, with no filter, skips the check.
 *
 * What remains is FTS5 itself: bm25() for every chunk holding any query term (no top-k
 * pruning in FTS5); fts-query.ts drops stop-words for that reason. Measured in
 * docs/decisions.md (issue 20, keyword leg).
 */
import type { Database } from "bun:sqlite";
import type { LegHit } from "../../domain/documents/fusion.ts";
import { ftsMatchExpression } from "./fts-query.ts";
import { ADMITS, type LegScope } from "./permitted.ts";

// The planner runs the MATCH as the outer loop (a virtual table with a MATCH is cheap to it),
// then one rowid lookup in `chunks` and one probe of the materialised set per hit.
const BM25_PERMITTED_SQL = `
  WITH ok(doc_id) AS MATERIALIZED (SELECT d.doc_id FROM documents d WHERE ${ADMITS})
  SELECT f.rowid AS seq, bm25(chunks_fts) AS score
    FROM chunks_fts f JOIN chunks c ON c.seq = f.rowid
   WHERE chunks_fts MATCH :match AND c.doc_id IN (SELECT doc_id FROM ok)
   ORDER BY score LIMIT :limit`;

// No join at all: writeDocument writes a chunk and its document row in one transaction and
// removeDocument deletes both, so no chunk lacks its document (and hydration joins documents
// anyway, so one could never be returned). At 1M chunks the join alone cost ~1 s a query.
const BM25_ALL_SQL = `
  SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts
   WHERE chunks_fts MATCH :match
   ORDER BY score LIMIT :limit`;

// `coalesce(..., 0)`: a rule that evaluates to NULL counts as a refusal, so an unknown value
// can never make the caller look unrestricted (fail closed, as canSee).
const REFUSED_SQL = `
  SELECT EXISTS (SELECT 1 FROM documents d WHERE NOT coalesce((${ADMITS}), 0)) AS refused`;

/** True when no filter is set and every document of the index admits the caller. */
export function seesEverything(db: Database, scope: LegScope): boolean {
  if (scope.doc_id != null || scope.entity_id != null || scope.doc_type != null) return false;
  return db.query<{ refused: number }, LegScope>(REFUSED_SQL).get(scope)?.refused === 0;
}

/** The best `scope.limit` permitted chunks for `query` by BM25 (higher is better); [] without a term. */
export function keywordLeg(db: Database, scope: LegScope, query: string): LegHit[] {
  const match = ftsMatchExpression(query);
  if (!match) return [];
  const sql = seesEverything(db, scope) ? BM25_ALL_SQL : BM25_PERMITTED_SQL;
  return (
    db
      .query<{ seq: number; score: number }, LegScope>(sql)
      .all({ ...scope, match })
      // FTS5's bm25() is lower-is-better; negate so every leg's score is higher-is-better.
      .map((r) => ({ id: String(r.seq), score: -r.score }))
  );
}
