/**
 * The vector leg of the embedded index. Two ways to the same answer:
 *
 * - exact: sqlite-vec KNN (cosine, brute force) over permitted chunks (permitted.ts), which
 *   vec0 applies while scanning. Used for small tenants, while an ANN is being built, and as
 *   the fallback for selective filters.
 * - ANN (ann-index.ts, HNSW): usearch has no filtered search, so the leg over-fetches with a
 *   proof of recall. It asks the ANN for k' candidates (nearest first, by the index's f16
 *   distance), keeps those the caller may see (one SQLite query for the candidates' documents:
 *   the chunk still exists and its document is among those the search's ACL pass admitted), and, when fewer than `limit` survive while more
 *   permitted chunks exist, grows k' ×4. The ACL is applied to
 *   every candidate, never to a top-k cut. Starting k' comes from the permitted fraction
 *   (a sum over the few document rows); when it or a grown k' passes the candidate cap the
 *   filter is selective and the leg answers exactly instead, as Lucene falls back to exact
 *   search for selective filters.
 */
import type { Database } from "bun:sqlite";
import type { LegHit } from "../../domain/documents/fusion.ts";
import type { AnnIndex } from "./ann-index.ts";
import { type Admitted, admitted, docsOf, type LegScope } from "./permitted.ts";

// The permitted chunks are those of the admitted documents (the search's one ACL pass), found
// through chunks_doc; vec0 applies `seq IN (...)` while scanning.
const DENSE_SQL = `
  SELECT seq, distance FROM chunks_vec
   WHERE embedding MATCH :vector AND k = :limit
     AND seq IN (SELECT c.seq FROM chunks c WHERE c.doc_id IN (SELECT value FROM json_each(:docs)))
   ORDER BY distance`;

const DENSE_ALL_SQL = `
  SELECT seq, distance FROM chunks_vec WHERE embedding MATCH :vector AND k = :limit ORDER BY distance`;

/**
 * Past this many ANN candidates (or a tenth of the index, if more) the filter is selective and
 * exact search over the permitted set is cheaper. Measured on the loaded 2-core machine: an
 * ANN candidate costs ~10 µs (graph search ~8.5 µs at k' = 10,000 on 50k f16 vectors, plus its
 * ACL check), the exact leg ~4.5 µs per chunk in the tenant under a selective filter.
 */
export const MAX_CANDIDATES = 4096;
const candidateCap = (size: number) => Math.max(MAX_CANDIDATES, Math.floor(size / 10));
/** Candidates per wanted result before the permitted fraction is applied (re-rank headroom). */
const OVERFETCH = 2;
const MIN_CANDIDATES = 64;

type Params = Record<string, string | number | null | Float32Array>;

/**
 * The `scope.limit` permitted chunks nearest to `vector`, scored by cosine similarity. `acl` is
 * the search's ACL pass (permitted.ts); computed here when the caller has none.
 */
export function denseLeg(
  db: Database,
  scope: LegScope,
  vector: Float32Array,
  ann?: AnnIndex | null,
  acl?: Admitted,
): LegHit[] {
  const a = acl ?? admitted(db, scope);
  if (ann) {
    const hits = annLeg(db, Number(scope.limit), vector, ann, a);
    if (hits) return hits;
  }
  return exactLeg(db, scope, vector, a);
}

export function exactLeg(db: Database, scope: LegScope, vector: Float32Array, acl?: Admitted): LegHit[] {
  const a = acl ?? admitted(db, scope);
  if (a.chunks === 0) return [];
  const params: Params = a.everything
    ? { vector, limit: scope.limit ?? null }
    : { vector, limit: scope.limit ?? null, docs: a.docsJson };
  return db
    .query<{ seq: number; distance: number }, Params>(a.everything ? DENSE_ALL_SQL : DENSE_SQL)
    .all(params)
    .map((r) => ({ id: String(r.seq), score: 1 - r.distance }));
}

/** The ANN answer, or null when the filter is too selective for over-fetching (answer exactly). */
function annLeg(db: Database, want: number, vector: Float32Array, ann: AnnIndex, a: Admitted): LegHit[] | null {
  const permitted = a.chunks;
  if (permitted === 0) return [];
  const size = Math.max(ann.size, 1);
  let k = Math.max(MIN_CANDIDATES, Math.ceil((OVERFETCH * want * size) / permitted));
  for (;;) {
    if (k > candidateCap(size) && k < size) return null;
    const found = ann.scored(vector, k);
    const docs = docsOf(
      db,
      found.map((f) => f.seq),
    );
    // Even a caller who sees everything drops a seq whose chunk is gone (the HNSW lags deletes).
    const rows = found.filter((f) => {
      const doc = docs.get(f.seq);
      return doc !== undefined && (a.everything || a.docs.has(doc));
    });
    // Enough permitted candidates, or the ANN was asked for everything it holds.
    if (rows.length >= Math.min(want, permitted) || k >= size) {
      if (rows.length < Math.min(want, permitted)) return null; // the graph missed some: be exact
      return rows.slice(0, want).map((r) => ({ id: String(r.seq), score: 1 - r.distance }));
    }
    k *= 4;
  }
}
