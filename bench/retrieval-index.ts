/**
 * The index the retrieval evaluation writes to and searches: a real tenant file of
 * SqliteDocumentIndex (its schema created by ensureNamespace), used only through the
 * DocumentIndexPort methods the service uses (putDocument, search), so the numbers are those
 * of the service's own BM25 leg, vector leg and RRF fusion (domain/documents/fusion.ts).
 */
import { SqliteDocumentIndex } from "../adapters/docindex/index.ts";
import type { DocumentMeta, IndexedChunk, SearchHit, SearchMode } from "../domain/documents/types.ts";
import type { TenantRef } from "../domain/tenants/namespaces.ts";

export interface EvalIndex {
  engine: string;
  put(meta: DocumentMeta, chunks: IndexedChunk[]): Promise<void>;
  /** Chunk hits, best first. */
  search(
    query: string,
    embedding: Float32Array,
    mode: SearchMode,
    k: number,
    weights?: { bm25: number; dense: number },
  ): Promise<SearchHit[]>;
  close(): Promise<void>;
}

const TENANT: TenantRef = { tenantId: "retrieval-eval", slug: "retrieval-eval" };

export async function openEvalIndex(dataDir: string, dim: number): Promise<EvalIndex> {
  // Searches inline (no search thread): the eval measures ranking, and its latency lines compare
  // the reranker with the search on the same thread.
  const index = new SqliteDocumentIndex({ dataDir, embeddingDim: dim, searchThreads: 0 });
  await index.ensureNamespace(TENANT);
  return {
    engine: "SqliteDocumentIndex (FTS5 + sqlite-vec)",
    put: (meta, chunks) => index.putDocument(TENANT, meta, chunks),
    search: (query, embedding, mode, k, weights) =>
      index.search(TENANT, {
        query,
        ...(mode === "bm25" ? {} : { embedding }),
        access: { tenantId: TENANT.tenantId, identityId: "1", roles: [], barriers: [] },
        filters: {},
        k,
        mode,
        ...(weights ? { weights } : {}),
      }),
    close: () => index.close(),
  };
}
