/**
 * The keyword leg of the embedded index: FTS5 BM25 over permitted chunks (permitted.ts).
 */
import type { Database } from "bun:sqlite";
import type { LegHit } from "../../domain/documents/fusion.ts";
import { ftsMatchExpression } from "./fts-query.ts";
import { type LegScope, PERMITTED } from "./permitted.ts";

// `+rowid`: the unary plus keeps the IN list away from FTS5's planner. Offered as a rowid
// constraint, FTS5 would run the MATCH once per permitted rowid (seconds at 20k chunks);
// as a plain expression the MATCH runs once and its hits are checked against the list.
const BM25_SQL = `
  SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts
   WHERE chunks_fts MATCH :match AND +rowid IN (${PERMITTED})
   ORDER BY score LIMIT :limit`;

/** The best `scope.limit` permitted chunks for `query` by BM25 (higher is better); [] without a term. */
export function keywordLeg(db: Database, scope: LegScope, query: string): LegHit[] {
  const match = ftsMatchExpression(query);
  if (!match) return [];
  return (
    db
      .query<{ seq: number; score: number }, LegScope>(BM25_SQL)
      .all({ ...scope, match })
      // FTS5's bm25() is lower-is-better; negate so every leg's score is higher-is-better.
      .map((r) => ({ id: String(r.seq), score: -r.score }))
  );
}
