/**
 * Asynchronous re-index of an editor document into its tenant's search index (spec 4.7,
 * 6.2): a durable job per stored change; the handler reads the document as it is *now*,
 * turns doc_ast into text blocks, chunks and embeds them, and replaces the document's
 * chunks with the document's access rules. Generations make it idempotent and coalescing:
 * a job whose change is already covered by a newer indexing does nothing.
 */
import { z } from "zod";
import type { DocumentIndexPort, Embedder } from "../documents/ports.ts";
import type { Chunk, DocumentMeta, IndexedChunk, TextBlock } from "../documents/types.ts";
import { AppError } from "../errors.ts";
import type { JobHandler, JobQueue, JobWorker, JsonValue } from "../ports.ts";
import type { TenantRef } from "../tenants/namespaces.ts";
import type { EditorDocumentStore } from "./ports.ts";
import { indexAcl } from "./roles.ts";
import { docAstToTextBlocks } from "./text.ts";

export const EDITOR_REINDEX_QUEUE = "editor-reindex";

export interface ReindexJob {
  doc_id: string;
  tenant_id: string;
  generation: number;
}

const ReindexJobSchema = z.object({
  doc_id: z.string().uuid(),
  tenant_id: z.string().min(1),
  generation: z.number().int().nonnegative(),
});

/** Splits a document's text blocks into chunks (the documents area's chunker). */
export type EditorChunker = (blocks: TextBlock[]) => Chunk[] | Promise<Chunk[]>;

export interface EditorReindexDeps {
  store: EditorDocumentStore;
  /** Tenant slug for the index (TenantRef). */
  getTenant(tenantId: string): Promise<{ tenant_id: string; slug: string } | null>;
  index: DocumentIndexPort;
  embedder: Embedder;
  chunker: EditorChunker;
  /** Texts per embed call. */
  embedBatch?: number;
}

/** The format recorded for editor documents in the index (DocumentMeta.format). */
export const EDITOR_FORMAT = "editor";

export function makeEditorReindexHandler(deps: EditorReindexDeps): JobHandler {
  const batch = deps.embedBatch ?? 32;
  return async (job): Promise<JsonValue> => {
    const parsed = ReindexJobSchema.safeParse(job.data);
    // A malformed payload can never succeed: complete it with the reason instead of retrying.
    if (!parsed.success) return { skipped: "invalid payload" };
    const { doc_id, tenant_id, generation } = parsed.data;
    const tenant = await deps.getTenant(tenant_id);
    if (!tenant) return { skipped: "unknown tenant" };
    const ref: TenantRef = { tenantId: tenant.tenant_id, slug: tenant.slug };

    const state = await deps.store.indexState(doc_id);
    const row = state ? await deps.store.get(tenant_id, doc_id) : null;
    if (!state || !row) {
      if (await deps.index.ready(ref)) await deps.index.deleteDocument(ref, doc_id);
      return { deleted: true };
    }
    if (state.indexed >= generation) return { skipped: "already indexed", generation: state.indexed };
    if (!(await deps.index.ready(ref))) return { skipped: "document index not provisioned" };

    // Everything below describes the document as of `state.generation` or later.
    const members = await deps.store.listMembers(doc_id);
    const chunks = await deps.chunker(docAstToTextBlocks(row.doc_ast, row.title));
    const meta: DocumentMeta = {
      doc_id,
      filename: row.title,
      format: EDITOR_FORMAT,
      doc_type: "other",
      entity_id: null,
      uploaded_by: String(row.owner_id),
      uploaded_at: row.created_at,
      acl: indexAcl(row, members),
    };
    if (chunks.length === 0) {
      await deps.index.deleteDocument(ref, doc_id);
    } else {
      const indexed: IndexedChunk[] = [];
      for (let i = 0; i < chunks.length; i += batch) {
        const part = chunks.slice(i, i + batch);
        const vectors = await deps.embedder.embed(
          part.map((c) => c.text),
          "passage",
        );
        if (vectors.length !== part.length)
          throw new AppError("internal", "embedder returned a wrong number of vectors");
        part.forEach((c, j) => {
          indexed.push({ ...c, id: `${doc_id}:${c.chunk_index}`, embedding: vectors[j] as Float32Array });
        });
      }
      await deps.index.putDocument(ref, meta, indexed);
    }
    await deps.store.markIndexed(doc_id, state.generation);
    return { indexed: chunks.length, generation: state.generation, version: row.version };
  };
}

/**
 * Registers the re-index worker once the documents area's index, embedder and chunker are
 * wired (main.ts). Until then jobs wait in the durable queue.
 */
export function startEditorReindexWorker(
  queue: JobQueue,
  deps: Pick<EditorReindexDeps, "store" | "getTenant" | "embedBatch">,
  index: DocumentIndexPort,
  embedder: Embedder,
  chunker: EditorChunker,
): JobWorker {
  // Embedding is the costly step and runs off the event loop in the embedder; two at a time.
  return queue.work(EDITOR_REINDEX_QUEUE, makeEditorReindexHandler({ ...deps, index, embedder, chunker }), {
    concurrency: 2,
  });
}
