/**
 * Documents wiring of the composition root: the editor service, the collaboration rooms and
 * the document service (extraction, embedding, index), with the editor's re-index worker.
 */
import type { Logger } from "pino";
import type { TenantDirectory } from "../actors/index.ts";
import { CollabRooms } from "../actors/index.ts";
import { SqlBarrierStore } from "../adapters/controlplane/index.ts";
import { HttpCollabAuthorizer, HttpCollabPersistence } from "../adapters/editor/collab.ts";
import { CrdtMergePool, SqlEditorDocumentStore } from "../adapters/editor/index.ts";
import { createEmbedder } from "../adapters/embeddings/index.ts";
import { Extractor } from "../adapters/extract/index.ts";
import { OpenAiChatModel } from "../adapters/llm/index.ts";
import type { MemoryBus } from "../adapters/pubsub/index.ts";
import type { Config } from "../config.ts";
import { canSee } from "../domain/documents/acl.ts";
import { chunkBlocks, chunkDocument } from "../domain/documents/chunking.ts";
import { LazyEmbedder } from "../domain/documents/lazy-embedder.ts";
import { DocumentService } from "../domain/documents/service.ts";
import { EMBEDDING_DIM } from "../domain/documents/types.ts";
import { UploadGate } from "../domain/documents/upload-gate.ts";
import { EditorService, startEditorReindexWorker } from "../domain/editor/index.ts";
import type { FinancialsStore } from "../domain/financials/ports.ts";
import type { ControlPlaneStore, JobQueue, JobWorker, PubSub } from "../domain/ports.ts";
import type { Authenticator } from "../http/auth/authenticator.ts";
import type { InstallationSecrets } from "../http/auth/secrets.ts";
import type { ProvisioningEngines } from "../pipelines/tenants/provisioning/index.ts";
import { CollabRevocations } from "../sockets/index.ts";
import { asDocumentIndex } from "./engines.ts";

export interface EditorDeps {
  config: Config;
  store: ControlPlaneStore;
  queue: JobQueue;
  pubsub: PubSub;
  memoryBus: MemoryBus | undefined;
  auth: Authenticator;
  tenants: TenantDirectory;
  secrets: InstallationSecrets;
  logger: Logger;
}

/**
 * Editor documents: the REST view, the auth webhook and the rooms' persistence share one
 * service; CRDT merges of large documents run on a worker thread. Its re-index jobs are
 * worked by `openDocuments`, once the document index and embedder exist.
 */
export function openEditor(d: EditorDeps) {
  const { config, store, logger } = d;
  const editorStore = new SqlEditorDocumentStore(store.sql);
  const editorMerger = new CrdtMergePool();
  // Rooms fan out between instances only when there are several (Redis, or a shared bus).
  const fanOut = config.counters.kind === "redis" || d.memoryBus ? d.pubsub : null;
  // Sharing changes re-check open editor connections on every instance (issue 13).
  const collabRevocations = new CollabRevocations({
    pubsub: fanOut,
    channel: `${config.redisPrefix}:collab-access`,
    instanceId: config.instanceId,
    logger,
  });
  const editor = new EditorService({
    store: editorStore,
    queue: d.queue,
    merger: editorMerger,
    verifyToken: (token) => d.auth.fromBearer(`Bearer ${token}`),
    requireActiveTenant: async (tenantId) => {
      await d.tenants.resolve(tenantId);
    },
    findUser: (id) => store.getUser(id),
    onReindexError: (err, docId) => logger.error({ err, doc_id: docId }, "could not queue an editor re-index"),
    onAccessChanged: (change) => collabRevocations.publish(change),
  });
  // Collaboration rooms (spec 4.7, docs/collab.md): persistence and auth through the editor
  // service in-process, or over HTTP when the collaboration server runs apart from the API.
  const collabPorts = config.collab.apiUrl
    ? {
        persistence: new HttpCollabPersistence({ baseUrl: config.collab.apiUrl, secret: d.secrets.collabSecret }),
        authorizer: new HttpCollabAuthorizer({ baseUrl: config.collab.apiUrl, secret: d.secrets.collabSecret }),
      }
    : { persistence: editor.persistence, authorizer: editor.authorizer };
  const collabRooms = new CollabRooms({
    persistence: collabPorts.persistence,
    pubsub: fanOut,
    channelPrefix: `${config.redisPrefix}:collab`,
    instanceId: config.instanceId,
    logger,
    debounceMs: config.collab.debounceMs,
    maxWaitMs: config.collab.maxWaitMs,
    unloadDelayMs: config.collab.unloadMs,
  });
  editor.useLiveRooms(collabRooms);
  return {
    editorStore,
    editorMerger,
    editor,
    collabAuthorizer: collabPorts.authorizer,
    collabRooms,
    collabRevocations,
  };
}

export interface DocumentsDeps {
  config: Config;
  store: ControlPlaneStore;
  queue: JobQueue;
  engines: ProvisioningEngines;
  financials: FinancialsStore;
  editorStore: SqlEditorDocumentStore;
  /** Where the editor's re-index worker is added. */
  workers: JobWorker[];
  logger: Logger;
}

/**
 * Documents: extraction and embedding run in worker threads; the embedding model loads on
 * first use (warmed at start outside tests), so an instance without models still starts.
 */
export function openDocuments(d: DocumentsDeps) {
  const { config, store, logger } = d;
  const documentIndex = asDocumentIndex(d.engines.documentIndex);
  const embedder = new LazyEmbedder(
    EMBEDDING_DIM,
    config.embeddings.kind === "onnx" ? config.embeddings.model : config.embeddings.url,
    () => createEmbedder(config.embeddings),
  );
  if (config.nodeEnv !== "test") {
    embedder
      .warm()
      .catch((err) =>
        logger.error({ err }, "the embedding model could not be loaded; uploads and searches answer 503"),
      );
  }
  const extractor = new Extractor({
    concurrency: config.extraction.concurrency,
    timeoutMs: config.extraction.timeoutMs,
    maxOcrPages: config.extraction.maxOcrPages,
    vision: config.extraction.vision,
    onWarning: (message, detail) => logger.warn(detail, message),
  });
  // Read per request from the control plane, so a revoked crossing applies to the next search.
  const barriers = new SqlBarrierStore(store.sql);
  const documents = new DocumentService({
    index: documentIndex,
    embedder,
    extract: (file, scope) =>
      extractor.extract({
        filename: file.filename,
        bytes: file.bytes,
        contentType: file.mimeType,
        key: scope.tenantId,
        signal: scope.signal,
      }),
    chunk: (doc) => chunkDocument(doc),
    barriers,
    llm: config.llm ? new OpenAiChatModel(config.llm) : null,
    financials: d.financials,
    gate: new UploadGate(config.uploads),
    permits: canSee,
  });
  // Editor documents are re-indexed into the same per-tenant index, with their access rules.
  d.workers.push(
    startEditorReindexWorker(
      d.queue,
      { store: d.editorStore, getTenant: (id) => store.getTenant(id) },
      documentIndex,
      embedder,
      (blocks) => chunkBlocks(blocks),
    ),
  );
  return { documents, embedder, extractor };
}
