/**
 * Checks every index adapter applies before a write or a search, and the compiled search
 * that reaches the engine: the ACL comes from the verified AccessContext only.
 */

import type { CompiledAcl } from "../../domain/documents/acl.ts";
import { compileAcl } from "../../domain/documents/acl.ts";
import { checkWeights } from "../../domain/documents/fusion.ts";
import type {
  DocumentMeta,
  IndexedChunk,
  SearchFilters,
  SearchMode,
  SearchRequest,
} from "../../domain/documents/types.ts";
import { AppError } from "../../domain/errors.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";

/** A search with the access context already compiled (what crosses to a worker). */
export interface CompiledSearch {
  query: string;
  embedding?: Float32Array;
  acl: CompiledAcl;
  filters: SearchFilters;
  k: number;
  mode: SearchMode;
  weights?: { bm25: number; dense: number };
}

/** Largest k a search may ask for. */
export const MAX_SEARCH_K = 1000;

/** Shared checks of every adapter's search: same tenant, sane k, a vector when a mode needs one. */
export function compileSearch(t: TenantRef, req: SearchRequest, dim: number): CompiledSearch {
  if (req.access.tenantId !== t.tenantId) {
    throw new AppError("forbidden", "the access context belongs to another tenant");
  }
  if (!Number.isInteger(req.k) || req.k < 1 || req.k > MAX_SEARCH_K) {
    throw new AppError("bad_request", `k must be an integer in 1..${MAX_SEARCH_K}, got ${req.k}`);
  }
  if (req.mode !== "bm25") {
    if (!(req.embedding instanceof Float32Array) || req.embedding.length !== dim) {
      throw new AppError("bad_request", `mode ${req.mode} needs a query embedding of ${dim} values`);
    }
  }
  if (req.weights) {
    const problem = checkWeights(req.weights);
    if (problem) throw new AppError("bad_request", problem);
  }
  return {
    query: req.query,
    ...(req.mode !== "bm25" && req.embedding ? { embedding: req.embedding } : {}),
    acl: compileAcl(req.access),
    filters: {
      ...(req.filters.doc_id !== undefined ? { doc_id: req.filters.doc_id } : {}),
      ...(req.filters.entity_id !== undefined ? { entity_id: req.filters.entity_id } : {}),
      ...(req.filters.doc_type !== undefined ? { doc_type: req.filters.doc_type } : {}),
    },
    k: req.k,
    mode: req.mode,
    ...(req.weights ? { weights: req.weights } : {}),
  };
}

/** A document's chunks: unique ids, embeddings of the index's width. */
export function checkChunks(doc: DocumentMeta, chunks: IndexedChunk[], dim: number): void {
  if (!doc.doc_id) throw new AppError("bad_request", "document without a doc_id");
  const ids = new Set<string>();
  for (const c of chunks) {
    if (ids.has(c.id)) throw new AppError("bad_request", `duplicate chunk id ${c.id}`);
    ids.add(c.id);
    if (!(c.embedding instanceof Float32Array) || c.embedding.length !== dim) {
      throw new AppError("bad_request", `chunk ${c.id}: embedding must be a Float32Array of ${dim} values`);
    }
  }
}
