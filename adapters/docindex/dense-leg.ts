/**
 * The vector leg of the embedded index: sqlite-vec KNN (cosine, brute force) over permitted
 * chunks (permitted.ts), which vec0 applies while scanning.
 */
import type { Database } from "bun:sqlite";
import type { LegHit } from "../../domain/documents/fusion.ts";
import { type LegScope, PERMITTED } from "./permitted.ts";

const DENSE_SQL = `
  SELECT seq, distance FROM chunks_vec
   WHERE embedding MATCH :vector AND k = :limit AND seq IN (${PERMITTED})
   ORDER BY distance`;

/** The `scope.limit` permitted chunks nearest to `vector`, scored by cosine similarity. */
export function denseLeg(db: Database, scope: LegScope, vector: Float32Array): LegHit[] {
  return db
    .query<{ seq: number; distance: number }, Record<string, string | number | null | Float32Array>>(DENSE_SQL)
    .all({ ...scope, vector })
    .map((r) => ({ id: String(r.seq), score: 1 - r.distance }));
}
