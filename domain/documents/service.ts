/**
 * DocumentService: the one path documents take in and out of a tenant's index.
 *
 * - upload: extract -> chunk -> embed -> putDocument, and only then answer, so the
 *   document is searchable the moment the response is sent (spec 2.10, 3.5).
 * - search: embeds the query and asks the index for the top k permitted chunks; the
 *   AccessContext is built here from the verified identity and barrier crossings read
 *   fresh for this request, never from anything the caller sends. The REST search, the
 *   RAG agent and the MCP tool all call this method.
 * - answer: the agentic RAG answer (agent.ts) over the same search.
 * - barriers: the information-barrier administration (BarrierService) over the same store
 *   search reads crossings from.
 *
 * The heavy steps (parsing, OCR, ONNX inference) run off the event loop inside their
 * adapters; uploads are bounded per instance by an UploadGate.
 */
import { AppError } from "../errors.ts";
import type { FinancialsReader } from "../financials/ports.ts";
import type { ChatModel } from "../llm.ts";
import type { TenantRef } from "../tenants/namespaces.ts";
import { documentIndexName } from "../tenants/namespaces.ts";
import { type AnswerResult, answerQuestion } from "./agent.ts";
import { BarrierService } from "./barriers-service.ts";
import type { BarrierStore, DocumentIndexPort, Embedder } from "./ports.ts";
import { type RankModel, RERANK_BY_DEFAULT, RERANK_DEPTH, rerankHits, SERVICE_RANK_MODEL } from "./rerank.ts";
import type {
  AccessContext,
  Chunk,
  DocType,
  DocumentAcl,
  DocumentMeta,
  ExtractedDocument,
  IndexedChunk,
  SearchFilters,
  SearchHit,
  SearchMode,
  Visibility,
} from "./types.ts";
import type { UploadGate } from "./upload-gate.ts";
import type { UploadScope } from "./upload-scope.ts";

/** The uploaded file as the HTTP layer received it. */
export interface UploadedFile {
  filename: string;
  /** Content type the client declared (may be generic, e.g. application/octet-stream). */
  mimeType: string;
  bytes: Uint8Array;
}

export interface UploadInput {
  tenant: TenantRef;
  /** The uploader's identity id (decimal user id), already checked against the caller. */
  uploadedBy: string;
  file: UploadedFile;
  docType: DocType;
  entityId: string | null;
  acl: DocumentAcl;
  /** The request's signal: once aborted (the client went away) nothing more is done or written. */
  signal?: AbortSignal | undefined;
}

/** Spec 2.10, exactly. */
export interface UploadedDocument {
  doc_id: string;
  filename: string;
  chunks: number;
  tenant_id: string;
  index_name: string;
  entity_id: string | null;
  doc_type: DocType;
  visibility: Visibility;
  status: "indexed";
}

export interface SearchInput {
  query: string;
  filters: SearchFilters;
  k: number;
  mode?: SearchMode;
}

/** The caller as the auth layer verified it. */
export interface VerifiedCaller {
  tenantId: string;
  userId: number;
  roles: readonly string[];
}

export interface DocumentServiceDeps {
  index: DocumentIndexPort;
  embedder: Embedder;
  /** `scope`: whose upload it is and the request's signal (a client that went away cancels it). */
  extract(file: UploadedFile, scope: UploadScope): Promise<ExtractedDocument>;
  chunk(doc: ExtractedDocument): Chunk[] | Promise<Chunk[]>;
  /** Crossings are read now for every search (no caching); the admin API writes through it. */
  barriers: BarrierStore;
  /** Null: the answer endpoint is extractive. */
  llm: ChatModel | null;
  financials: FinancialsReader;
  gate: UploadGate;
  /** The ACL rule (acl.ts canSee): re-checks every hit (defence in depth) and guards get/delete. */
  permits(acl: DocumentAcl, access: AccessContext): boolean;
  /** Texts per embedder call during upload (bounds memory of one call). */
  embedBatch?: number;
  /**
   * The learned reranker for hybrid searches (rerank.ts): a model, null for none; unset = the
   * shipped model when RERANK_BY_DEFAULT, else none.
   */
  rerank?: RankModel | null;
  now?(): Date;
}

/** Thrown as a section-7 validation error on the file field. */
export function noTextError(filename: string, format: string | null, why: string): AppError {
  return AppError.validation([
    {
      loc: ["body", "file"],
      msg: `No text could be extracted from the file: ${why}`,
      type: "no_text_extracted",
      input: filename,
      ctx: format ? { format } : {},
    },
  ]);
}

/** Stops an upload whose client went away: nothing after this point is written. */
function abandoned(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AppError("unavailable", "The upload was cancelled: the client went away");
}

export class DocumentService {
  #extracting = 0;
  /** Information barriers and their crossings (the admin API). */
  readonly barriers: BarrierService;

  constructor(private readonly deps: DocumentServiceDeps) {
    if (deps.embedder.dim <= 0) throw new Error("DocumentService: embedder has no dimension");
    this.barriers = new BarrierService(deps.barriers);
  }

  get gate(): UploadGate {
    return this.deps.gate;
  }

  /** Uploads now in their extraction step (for metrics and tests). */
  get extracting(): number {
    return this.#extracting;
  }

  get answerMode(): "llm" | "extractive" {
    return this.deps.llm ? "llm" : "extractive";
  }

  /** 503 unless the tenant's index is provisioned. */
  async requireIndex(tenant: TenantRef): Promise<void> {
    if (!(await this.deps.index.ready(tenant))) {
      throw new AppError("unavailable", `The document index ${documentIndexName(tenant.tenantId)} is not provisioned`);
    }
  }

  async upload(input: UploadInput): Promise<UploadedDocument> {
    const { tenant, file } = input;
    await this.requireIndex(tenant);
    const barrierId = input.acl.barrier_id;
    if (barrierId !== null && !(await this.deps.barriers.get(tenant.tenantId, barrierId))) {
      // Nobody could ever cross an unknown barrier: the document would be invisible to all.
      throw AppError.validation([
        {
          loc: ["body", "barrier_id"],
          msg: "No barrier with this id exists in the tenant",
          type: "value_error",
          input: barrierId,
          ctx: {},
        },
      ]);
    }
    const signal = input.signal;
    const scope: UploadScope = { tenantId: tenant.tenantId, signal };
    this.#extracting++;
    let extracted: ExtractedDocument;
    try {
      extracted = await this.deps.extract(file, scope);
    } finally {
      this.#extracting--;
    }
    abandoned(signal);
    const hasText = extracted.blocks.some((b) => b.text.trim().length > 0);
    if (!hasText) throw noTextError(file.filename, extracted.format, "the document has no text layer or readable text");
    const chunks = (await this.deps.chunk(extracted)).filter((c) => c.text.trim().length > 0);
    if (chunks.length === 0) throw noTextError(file.filename, extracted.format, "no chunk with text");

    const docId = crypto.randomUUID();
    const embeddings = await this.embedPassages(chunks.map((c) => c.text));
    const indexed: IndexedChunk[] = chunks.map((c, i) => ({
      chunk_index: c.chunk_index,
      text: c.text,
      ...(c.page !== undefined ? { page: c.page } : {}),
      id: `${docId}:${c.chunk_index}`,
      embedding: embeddings[i] as Float32Array,
    }));
    const meta: DocumentMeta = {
      doc_id: docId,
      filename: file.filename,
      format: extracted.format,
      doc_type: input.docType,
      entity_id: input.entityId,
      uploaded_by: input.uploadedBy,
      uploaded_at: (this.deps.now?.() ?? new Date()).toISOString(),
      acl: input.acl,
    };
    // A client that went away while we embedded gets no half-indexed document.
    abandoned(signal);
    // Returns once the chunks are committed: the document is searchable when we answer.
    await this.deps.index.putDocument(tenant, meta, indexed);
    return {
      doc_id: docId,
      filename: file.filename,
      chunks: indexed.length,
      tenant_id: tenant.tenantId,
      index_name: documentIndexName(tenant.tenantId),
      entity_id: input.entityId,
      doc_type: input.docType,
      visibility: input.acl.visibility,
      status: "indexed",
    };
  }

  /** The caller's access, with barrier crossings read now. */
  async accessFor(caller: VerifiedCaller): Promise<AccessContext> {
    const identityId = String(caller.userId);
    const barriers = await this.deps.barriers.crossedBarriers(caller.tenantId, identityId);
    return { tenantId: caller.tenantId, identityId, roles: [...caller.roles], barriers: [...barriers] };
  }

  /** Top k permitted chunks for the query (hybrid by default). */
  async search(tenant: TenantRef, access: AccessContext, input: SearchInput): Promise<SearchHit[]> {
    if (access.tenantId !== tenant.tenantId) throw new AppError("forbidden", "access context of another tenant");
    await this.requireIndex(tenant);
    const mode = input.mode ?? "hybrid";
    const embedding = mode === "bm25" ? undefined : (await this.deps.embedder.embed([input.query], "query"))[0];
    const model =
      mode !== "hybrid"
        ? null
        : this.deps.rerank !== undefined
          ? this.deps.rerank
          : RERANK_BY_DEFAULT
            ? SERVICE_RANK_MODEL
            : null;
    const hits = await this.deps.index.search(tenant, {
      query: input.query,
      ...(embedding ? { embedding } : {}),
      access,
      filters: input.filters,
      // The reranker sees the fused top RERANK_DEPTH, however small k is.
      k: model ? Math.max(input.k, RERANK_DEPTH) : input.k,
      mode,
    });
    const allowed = hits.filter((h) => this.deps.permits(h.document.acl, access));
    if (allowed.length !== hits.length) {
      // The index's pre-filter let something through: refuse rather than leak.
      throw new AppError("internal", "document index returned a chunk the caller may not see");
    }
    return model ? rerankHits(input.query, allowed, model).slice(0, input.k) : allowed;
  }

  /** A document the caller may see, else 404 (whether it exists is not revealed). */
  async get(tenant: TenantRef, access: AccessContext, docId: string): Promise<DocumentMeta & { chunks: number }> {
    await this.requireIndex(tenant);
    const doc = await this.deps.index.getDocument(tenant, docId);
    if (!doc || !this.deps.permits(doc.acl, access)) throw new AppError("not_found", `Document ${docId} not found`);
    return doc;
  }

  /** Removes a document: its uploader or a tenant owner, among those who may see it. */
  async delete(tenant: TenantRef, access: AccessContext, docId: string): Promise<void> {
    const doc = await this.get(tenant, access, docId);
    if (doc.uploaded_by !== access.identityId && !access.roles.includes("owner")) {
      throw new AppError("forbidden", "Only the uploader or a tenant owner may delete a document");
    }
    await this.deps.index.deleteDocument(tenant, docId);
  }

  /** The agentic answer (LLM with tools when configured, extractive otherwise). */
  async answer(
    tenant: TenantRef,
    access: AccessContext,
    input: { question: string; k: number; filters: Pick<SearchFilters, "doc_id" | "entity_id"> },
    signal?: AbortSignal,
  ): Promise<AnswerResult> {
    await this.requireIndex(tenant);
    return answerQuestion(
      {
        llm: this.deps.llm,
        financials: this.deps.financials,
        search: (query, filters, k) => this.search(tenant, access, { query, filters, k }),
      },
      input,
      signal,
    );
  }

  private async embedPassages(texts: string[]): Promise<Float32Array[]> {
    const batch = this.deps.embedBatch ?? 64;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batch) {
      const vectors = await this.deps.embedder.embed(texts.slice(i, i + batch), "passage");
      if (vectors.length !== Math.min(batch, texts.length - i)) throw new Error("embedder returned a wrong count");
      for (const v of vectors) {
        if (v.length !== this.deps.embedder.dim) throw new Error(`embedder returned ${v.length} dimensions`);
        out.push(v);
      }
    }
    return out;
  }
}
