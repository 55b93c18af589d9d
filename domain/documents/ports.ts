/**
 * The ports the documents area needs from engines: the per-tenant index, the embedding
 * model and the control plane's information barriers. Adapters implement them
 * (adapters/docindex, adapters/embeddings, adapters/controlplane); DocumentService and
 * BarrierService reach them only through these interfaces, wired in composition/documents.ts.
 */
import type { TenantRef } from "../tenants/namespaces.ts";
import type { Barrier, BarrierCrossing } from "./barriers.ts";
import type { DocumentMeta, EmbedKind, IndexedChunk, SearchHit, SearchRequest } from "./types.ts";

/** Sentence embeddings of width `dim` (768 in the service), L2-normalised. */
export interface Embedder {
  readonly dim: number;
  /** Names the model(s), e.g. "bge-small-en-v1.5+e5-small-v2". */
  readonly model: string;
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** The per-tenant index `client-docs-{tenant_id}` (SQLite FTS5 + sqlite-vec, or OpenSearch). */
export interface DocumentIndexPort {
  /** False when the tenant's index is not provisioned (upload answers 503). */
  ready(t: TenantRef): Promise<boolean>;
  /** Replaces every chunk of `doc.doc_id` atomically: searchers see the old set or the new set. */
  putDocument(t: TenantRef, doc: DocumentMeta, chunks: IndexedChunk[]): Promise<void>;
  deleteDocument(t: TenantRef, docId: string): Promise<boolean>;
  getDocument(t: TenantRef, docId: string): Promise<(DocumentMeta & { chunks: number }) | null>;
  /** Top k permitted chunks; the ACL is a pre-filter on every leg. */
  search(t: TenantRef, req: SearchRequest): Promise<SearchHit[]>;
}

export interface BarrierStore {
  /** 409 (conflict) when the tenant already has a barrier with this name. */
  create(tenantId: string, input: { name: string; description: string; createdBy: string }): Promise<Barrier>;
  get(tenantId: string, barrierId: string): Promise<Barrier | null>;
  /** The tenant's barriers, oldest first. */
  list(tenantId: string): Promise<Barrier[]>;
  /**
   * Records that `identityId` (a user of the tenant) crossed the barrier. Idempotent: an
   * active crossing is returned as is with `created: false`. 404 for an unknown barrier or
   * an identity that is not a user of the tenant.
   */
  cross(
    tenantId: string,
    barrierId: string,
    identityId: string,
    by: string,
  ): Promise<{ crossing: BarrierCrossing; created: boolean }>;
  /** Ends the active crossing; false when there was none. */
  revoke(tenantId: string, barrierId: string, identityId: string, by: string): Promise<boolean>;
  /** Crossings of one barrier, newest first; revoked ones only when asked. */
  crossings(tenantId: string, barrierId: string, opts?: { includeRevoked?: boolean }): Promise<BarrierCrossing[]>;
  /** Barrier ids the identity has crossed now — what AccessContext.barriers is built from. */
  crossedBarriers(tenantId: string, identityId: string): Promise<string[]>;
}
