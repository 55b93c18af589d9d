/**
 * Documents (spec 2.10, 4.6): the shapes the upload pipeline, the per-tenant index and
 * search share. The ports the adapters implement (index, embedder, barriers) are in
 * ports.ts; the HTTP layer and the RAG agent only see these types.
 *
 * Access control is a property of every chunk (copied from its document at upload) and is
 * compiled into a pre-filter from the caller's verified identity (`AccessContext`), never
 * from anything the caller sends.
 */
export const DOC_TYPES = [
  "cim",
  "nda",
  "management_accounts",
  "dd_report",
  "board_pack",
  "research_note",
  "legal_agreement",
  "pitch",
  "other",
] as const;
export type DocType = (typeof DOC_TYPES)[number];

export const VISIBILITIES = ["tenant_wide", "deal_private", "team_only"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** Spec 8.2: uploads are at most 50 MB. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** Spec 8.2: embeddings are 768-dimensional. */
export const EMBEDDING_DIM = 768;

/** A document's access rules, fixed at upload (visibility cannot change without re-upload). */
export interface DocumentAcl {
  visibility: Visibility;
  /** Identity ids allowed to see a deal_private document (empty otherwise). */
  allowed_identity_ids: string[];
  /** Role slugs allowed to see a team_only document (empty otherwise). */
  allowed_roles: string[];
  /** Information barrier the caller must have crossed, or null. */
  barrier_id: string | null;
}

/**
 * Who is searching, from the verified identity only. `identityId` is the user's id as a
 * decimal string (the same value the upload form's identity_id and allowed_identity_ids use).
 * `barriers` are the barriers the identity has crossed *now* (read fresh per request, so a
 * revoked crossing takes effect on the next search).
 */
export interface AccessContext {
  tenantId: string;
  identityId: string;
  roles: readonly string[];
  barriers: readonly string[];
}

/** Document-level facts stored with every chunk and returned with every hit. */
export interface DocumentMeta {
  doc_id: string;
  filename: string;
  /** Detected format: pdf, docx, pptx, txt, md, csv, html, png, jpeg, svg (DocFormat in formats.ts). */
  format: string;
  doc_type: DocType;
  entity_id: string | null;
  uploaded_by: string;
  uploaded_at: string;
  acl: DocumentAcl;
}

/** One block of extracted text in reading order (a paragraph, table row group, slide frame...). */
export interface TextBlock {
  text: string;
  /** 1-based page or slide number when the format has pages. */
  page?: number;
  kind?: "paragraph" | "heading" | "table" | "list" | "ocr" | "description" | "frame";
}

export interface ExtractedDocument {
  format: string;
  blocks: TextBlock[];
  /** Pages (PDF), slides (PPTX), 1 for single-page formats. */
  pages: number;
  /** Human-readable notes, e.g. "OCR used on page 2", "description derived from layout (no vision model)". */
  notes: string[];
}

export interface Chunk {
  chunk_index: number;
  text: string;
  /** First page the chunk's text comes from, when known. */
  page?: number;
}

export interface IndexedChunk extends Chunk {
  /** `${doc_id}:${chunk_index}` */
  id: string;
  /** EMBEDDING_DIM floats, L2-normalised. */
  embedding: Float32Array;
}

export type EmbedKind = "query" | "passage";

export interface SearchFilters {
  doc_id?: string;
  entity_id?: string;
  doc_type?: DocType;
}

export type SearchMode = "hybrid" | "bm25" | "dense";

export interface SearchRequest {
  /** Query text for the keyword leg. */
  query: string;
  /** Query embedding for the dense leg (absent when mode is bm25). */
  embedding?: Float32Array;
  access: AccessContext;
  filters: SearchFilters;
  k: number;
  mode: SearchMode;
  /** RRF weights of the two legs (default 1 and 1). */
  weights?: { bm25: number; dense: number };
}

export interface SearchHit {
  chunk_id: string;
  doc_id: string;
  chunk_index: number;
  text: string;
  page: number | null;
  /** Fused score (RRF in hybrid mode, the leg's own score otherwise); higher is better. */
  score: number;
  /** 1-based rank in each leg, null when the chunk was not in that leg's candidates. */
  ranks: { bm25: number | null; dense: number | null };
  document: DocumentMeta;
}
