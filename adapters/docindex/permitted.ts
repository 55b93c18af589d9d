/**
 * The ACL pre-filter of the embedded index: which documents admit the caller
 * (domain/documents/acl.ts `canSee`, compiled to SQL) and match the doc_id / entity_id /
 * doc_type filters. The caller's roles and barriers are bound as JSON arrays (`json_each(?)`),
 * so the statement text never depends on the caller.
 *
 * The rule is evaluated once per search (`admitted`): one scan of `documents` (documents are
 * ~100× fewer than chunks) answers everything both legs need — the admitted documents, how
 * many chunks they hold, and whether the caller sees everything. The legs then check chunks
 * against that answer by `doc_id` and never evaluate the rule again (they used to, three times
 * per hybrid query: the dense leg's permitted count, the keyword leg's "anything refused?" and
 * its admitted-documents set).
 */
import type { Database } from "bun:sqlite";

/** Named parameters every leg binds (`:identity`, `:roles`, `:barriers`, filters, `:limit`). */
export type LegScope = Record<string, string | number | null>;

/**
 * Whether document `d` admits the caller and matches the filters: a predicate over the alias
 * `d` (documents). It can be NULL (a filter on a NULL column, a NULL in a bound array): every
 * user of it must read NULL as a refusal.
 */
export const ADMITS = `
      (d.visibility = 'tenant_wide'
          OR (d.visibility = 'deal_private'
              AND EXISTS (SELECT 1 FROM json_each(d.allowed_identity_ids) a WHERE a.value = :identity))
          OR (d.visibility = 'team_only'
              AND EXISTS (SELECT 1 FROM json_each(d.allowed_roles) a
                           WHERE a.value IN (SELECT value FROM json_each(:roles)))))
     AND (d.barrier_id IS NULL OR d.barrier_id IN (SELECT value FROM json_each(:barriers)))
     AND (:doc_id IS NULL OR d.doc_id = :doc_id)
     AND (:entity_id IS NULL OR d.entity_id = :entity_id)
     AND (:doc_type IS NULL OR d.doc_type = :doc_type)`;

// `coalesce(..., 0)`: a rule that evaluates to NULL is a refusal, so an unknown value can never
// admit a document nor make the caller look unrestricted (fail closed, as canSee).
const ACL_PASS_SQL = `
  SELECT d.doc_id, d.chunk_count AS chunks, coalesce((${ADMITS}), 0) AS ok FROM documents d`;

/** The answer of the one ACL pass of a search. */
export interface Admitted {
  /** The documents admitting the caller and matching the filters. */
  docs: Set<string>;
  /** `docs` as a JSON array, bound as `:docs` (`doc_id IN (SELECT value FROM json_each(:docs))`). */
  docsJson: string;
  /** Chunks held by `docs` (the permitted chunks). */
  chunks: number;
  /** Chunks in the whole index. */
  total: number;
  /** No filter is set and every document admits the caller: a leg may skip the check. */
  everything: boolean;
}

/** Evaluates the caller's ACL and filters over every document, once. */
export function admitted(db: Database, scope: LegScope): Admitted {
  const rows = db.query<{ doc_id: string; chunks: number; ok: number }, LegScope>(ACL_PASS_SQL).all(scope);
  const docs = new Set<string>();
  let chunks = 0;
  let total = 0;
  for (const r of rows) {
    total += r.chunks;
    if (r.ok !== 1) continue;
    docs.add(r.doc_id);
    chunks += r.chunks;
  }
  const filtered = scope.doc_id != null || scope.entity_id != null || scope.doc_type != null;
  return {
    docs,
    docsJson: JSON.stringify([...docs]),
    chunks,
    total,
    everything: !filtered && docs.size === rows.length,
  };
}

// A seq whose chunk is gone (deleted since the candidate was found) simply has no row.
const DOC_OF_SQL = "SELECT seq, doc_id FROM chunks WHERE seq IN (SELECT value FROM json_each(:seqs))";

/** The documents of a leg's candidates, by seq; a deleted chunk's seq is absent. */
export function docsOf(db: Database, seqs: readonly number[]): Map<number, string> {
  const rows = db
    .query<{ seq: number; doc_id: string }, { seqs: string }>(DOC_OF_SQL)
    .all({ seqs: JSON.stringify(seqs) });
  return new Map(rows.map((r) => [r.seq, r.doc_id]));
}
