/**
 * Composition root: parse config, build the adapters the profile names, start the
 * actors, serve HTTP. The only module that wires adapters in.
 */
import { dirname, join } from "node:path";
import type { Server, WebSocketHandler } from "bun";
import type { Logger } from "pino";
import { CollabRooms, NewsHub, RateLimiter, TenantDirectory, UsageRecorder } from "./actors/index.ts";
import { HttpCollabAuthorizer, HttpCollabPersistence } from "./adapters/collab/index.ts";
import {
  BARRIER_MIGRATIONS,
  LAKEHOUSE_MIGRATIONS,
  SqlBarrierStore,
  SqlControlPlaneStore,
  SqlLakehouseCatalogStore,
  SqlTieringStateStore,
  sourceSchemaAttachments,
  TIERING_MIGRATIONS,
} from "./adapters/controlplane/index.ts";
import { MemoryCounterStore, RedisCounterStore } from "./adapters/counters/index.ts";
import { OpenSearchDocumentIndex, SqliteDocumentIndex } from "./adapters/docindex/index.ts";
import { CrdtMergePool, EDITOR_MIGRATIONS, SqlEditorDocumentStore } from "./adapters/editor/index.ts";
import { createEmbedder } from "./adapters/embeddings/index.ts";
import { Extractor } from "./adapters/extract/index.ts";
import { FINANCIALS_MIGRATIONS, SqlFinancialsStore } from "./adapters/financials/index.ts";
import { LadybugGraph } from "./adapters/graph/index.ts";
import { GatewayLakehouse } from "./adapters/lakehouse/index.ts";
import { OpenAiChatModel } from "./adapters/llm/index.ts";
import { SmtpMailer } from "./adapters/mail/index.ts";
import { HttpFeedReader, NEWS_MIGRATIONS, SqlFeedStateStore, SqlNewsStore } from "./adapters/news/index.ts";
import { DuckDbParquetInspector, LocalObjectStore, S3ObjectStore } from "./adapters/objectstore/index.ts";
import { type MemoryBus, MemoryPubSub, type PubSubErrorEvent, RedisPubSub } from "./adapters/pubsub/index.ts";
import { BullJobQueue, EmbeddedJobQueue, JOB_QUEUE_MIGRATIONS } from "./adapters/queue/index.ts";
import { openResearchStores, RESEARCH_MIGRATIONS } from "./adapters/research/index.ts";
import { loadKeyRing } from "./adapters/secrets/index.ts";
import { migrate, PostgresClient, SqliteClient } from "./adapters/sql/index.ts";
import { DuckDbTimeSeries, QuestDbTimeSeries } from "./adapters/timeseries/index.ts";
import { ExcelJsRenderer } from "./adapters/xlsx/index.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { canSee } from "./domain/documents/acl.ts";
import { chunkBlocks, chunkDocument } from "./domain/documents/chunking.ts";
import { LazyEmbedder } from "./domain/documents/lazy-embedder.ts";
import { DocumentService } from "./domain/documents/service.ts";
import { type DocumentIndexPort, EMBEDDING_DIM } from "./domain/documents/types.ts";
import { UploadGate } from "./domain/documents/upload-gate.ts";
import { EditorService, startEditorReindexWorker } from "./domain/editor/index.ts";
import { AppError } from "./domain/errors.ts";
import type { FinancialsStore } from "./domain/financials.ts";
import type { LakehousePort } from "./domain/lakehouse.ts";
import { defaultCatalogWriter } from "./domain/lakehouse-catalog.ts";
import type { Mailer } from "./domain/mail.ts";
import type { ControlPlaneStore, CounterStore, JobQueue, JobWorker, PubSub } from "./domain/ports.ts";
import { SecretBox } from "./domain/secret-box.ts";
import { NO_REALTIME_TABLES } from "./domain/timeseries/index.ts";
import { buildApp } from "./http/app.ts";
import { Authenticator } from "./http/auth/authenticator.ts";
import { JwtVerifier } from "./http/auth/jwt.ts";
import { loadInstallationSecrets } from "./http/auth/secrets.ts";
import type { AppDeps } from "./http/deps.ts";
import { createLogger } from "./http/logger.ts";
import { LAKEHOUSE_SYNC_QUEUE, makeLakehouseSyncHandler } from "./pipelines/lakehouse-sync/index.ts";
import { createCompanyLinker, DEFAULT_POLLER, NewsIngestor, NewsPoller } from "./pipelines/news/index.ts";
import {
  FaultInjector,
  type ProvisioningEngines,
  startProvisioningWorker,
  TenantLifecycle,
} from "./pipelines/provisioning/index.ts";
import { RTDB_TIERING_QUEUE } from "./pipelines/rtdb-tiering.ts";
import { TieredTableReader } from "./pipelines/rtdb-tiering-reader.ts";
import { makeTieringHandler, TieringScheduler } from "./pipelines/rtdb-tiering-schedule.ts";
import { makeSecIngestHandler, SEC_INGEST_QUEUE, SecClient } from "./pipelines/sec-ingest/index.ts";
import {
  collabHandlers,
  handleCollabUpgrade,
  isCollabPath,
  makeWebSocketHandler,
  type SocketData,
} from "./sockets/index.ts";

/** The time-series engine: QuestDB when CAIRN_QUESTDB_URL is set, else embedded DuckDB under the data dir. */
export function openTimeSeries(config: Config): DuckDbTimeSeries | QuestDbTimeSeries {
  return config.questdb
    ? new QuestDbTimeSeries({ url: config.questdb.url })
    : new DuckDbTimeSeries({ dataDir: config.dataDir });
}

/** The document index: OpenSearch when CAIRN_OPENSEARCH_URL is set, else one SQLite file per tenant. */
export function openDocumentIndex(config: Config): OpenSearchDocumentIndex | SqliteDocumentIndex {
  return config.opensearch
    ? new OpenSearchDocumentIndex({ url: config.opensearch.url, replicas: config.opensearch.replicas })
    : new SqliteDocumentIndex({ dataDir: config.dataDir, searchThreads: config.searchThreads });
}

/** Opens the control plane of the configured profile and applies every migration. */
export async function openControlPlane(config: Config): Promise<ControlPlaneStore> {
  const sql =
    config.controlPlane.kind === "sqlite"
      ? // The ci/dm/pm/md read models: one attached file each, so `ci.table` works as on Postgres.
        new SqliteClient(config.controlPlane.path, {
          attach: sourceSchemaAttachments(dirname(config.controlPlane.path)),
        })
      : new PostgresClient(config.controlPlane.url);
  const store = new SqlControlPlaneStore(sql);
  await store.migrate([
    ...JOB_QUEUE_MIGRATIONS,
    ...LAKEHOUSE_MIGRATIONS,
    ...RESEARCH_MIGRATIONS,
    ...NEWS_MIGRATIONS,
    ...EDITOR_MIGRATIONS,
    ...TIERING_MIGRATIONS,
    ...BARRIER_MIGRATIONS,
  ]);
  return store;
}

/**
 * Opens the public financial data store and applies its migrations: its own SQLite file in
 * the embedded profile (a long ingest then never holds the control plane's connection),
 * the control-plane database on Postgres.
 */
export async function openFinancials(
  config: Config,
  controlPlane: ControlPlaneStore,
): Promise<{ store: FinancialsStore; close(): Promise<void> }> {
  if (config.controlPlane.kind === "sqlite") {
    const sql = new SqliteClient(join(config.dataDir, "financials.sqlite"));
    await migrate(sql, FINANCIALS_MIGRATIONS);
    return { store: new SqlFinancialsStore(sql), close: () => sql.close() };
  }
  await migrate(controlPlane.sql, FINANCIALS_MIGRATIONS);
  return { store: new SqlFinancialsStore(controlPlane.sql), close: async () => {} };
}

export interface ServiceOptions {
  logger?: Logger;
  /** Lets several in-process instances share one in-memory bus (tests of the embedded profile). */
  memoryBus?: MemoryBus;
  /**
   * Engines owned by the caller and shared by several in-process instances, as a cluster
   * shares its document index, time-series and graph servers (tests); not closed here.
   */
  sharedEngines?: Omit<ProvisioningEngines, "lakehouse">;
}

export interface Service {
  readonly deps: AppDeps;
  readonly store: ControlPlaneStore;
  /** Public SEC fundamentals: read by the routes, written by the sec-ingest pipeline. */
  readonly financials: FinancialsStore;
  readonly engines: ProvisioningEngines;
  /** Test-only provisioning fault hooks (inert unless CAIRN_TEST_FAULTS). */
  readonly faults: FaultInjector;
  readonly app: ReturnType<typeof buildApp>;
  /** `server` is what Bun passes to fetch (needed for WebSocket upgrades). */
  fetch(req: Request, server?: unknown): Response | Promise<Response>;
  /** The collaboration rooms of this instance (spec 4.7). */
  readonly collabRooms: CollabRooms;
  /** Bun's WebSocket handler for every socket the app upgrades (news stream). */
  readonly websocket: WebSocketHandler<SocketData>;
  /**
   * Closes the news streams, saves every collaboration room and closes the collaboration
   * sockets (refusing new ones of both kinds): call when shutdown begins, since Bun's server.stop(false) waits for open sockets.
   */
  closeSockets(): Promise<void>;
  /** Flushes and closes every adapter; call after HTTP has drained. */
  close(): Promise<void>;
}

export async function buildService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const logger = opts.logger ?? createLogger(config.logLevel, { instance: config.instanceId });
  const store = await openControlPlane(config);
  const financials = await openFinancials(config, store);
  const queue: JobQueue =
    config.queue.kind === "redis"
      ? new BullJobQueue({
          url: config.queue.url,
          prefix: `${config.redisPrefix}:bull`,
          lockDurationMs: config.jobLeaseMs,
          logger,
        })
      : new EmbeddedJobQueue(store.sql, { leaseMs: config.jobLeaseMs, logger });
  const counters: CounterStore =
    config.counters.kind === "redis"
      ? new RedisCounterStore({ url: config.counters.url, prefix: `${config.redisPrefix}:` })
      : new MemoryCounterStore();
  const onPubSubError = (e: PubSubErrorEvent) => logger.error({ pubsub: e }, "pub/sub listener failed");
  const pubsub: PubSub =
    config.counters.kind === "redis"
      ? new RedisPubSub({ url: config.counters.url, onError: onPubSubError })
      : new MemoryPubSub(opts.memoryBus, { onError: onPubSubError });

  const secrets = await loadInstallationSecrets(config, store);
  const auth = new Authenticator(store, new JwtVerifier({ ...config.jwt, secret: secrets.jwtSecret }), secrets);
  const tenants = new TenantDirectory(store, pubsub, { ttlMs: config.routingCacheTtlMs, logger });
  await tenants.start();
  // One channel per installation (the Redis prefix): every instance fans out every article.
  const newsHub = new NewsHub({ pubsub, channel: `${config.redisPrefix}:news:articles`, logger });
  await newsHub.start();
  // Deactivation stops routing for open streams too: close the tenant's sockets once it no
  // longer resolves (an invalidation after activation leaves them alone).
  tenants.onInvalidate((tenantId) => {
    tenants.resolve(tenantId).catch((err: unknown) => {
      if (err instanceof AppError && (err.code === "tenant_inactive" || err.code === "not_found")) {
        const n = newsHub.closeTenant(tenantId, err.closeCode, "tenant is not active");
        if (n > 0) logger.info({ tenant_id: tenantId, closed: n }, "closed the streams of a deactivated tenant");
        const c = collabSockets.closeTenant(tenantId, err.closeCode, "tenant is not active");
        if (c > 0) logger.info({ tenant_id: tenantId, closed: c }, "closed the editor sockets of a deactivated tenant");
      }
    });
  });
  const rateLimiter = new RateLimiter(counters, { scale: config.rateLimitScale });
  const usage = new UsageRecorder(store, {
    flushMs: config.usageFlushMs,
    onEvent: (e) => logger.warn({ usage: e }, "usage recorder"),
  });

  const lakehouse: LakehousePort | null = config.lakehouse
    ? new GatewayLakehouse({ url: config.lakehouse.url, token: config.lakehouse.token })
    : null;
  const engines: ProvisioningEngines = {
    ...(opts.sharedEngines ?? {
      documentIndex: openDocumentIndex(config),
      timeseries: openTimeSeries(config),
      graph: new LadybugGraph({ dataDir: config.dataDir }),
    }),
    lakehouse,
  };
  const keyRing = loadKeyRing(config);
  if (config.profile === "cluster" && keyRing.source !== "env") {
    logger.warn(
      { key_file: keyRing.source.file },
      "CAIRN_SECRET_KEYS is not set: secrets are encrypted with a key kept in the data directory; " +
        "every instance needs the same key ring, so set CAIRN_SECRET_KEYS for multi-instance deployments",
    );
  }
  const secretBox = new SecretBox(keyRing.ring);
  const lakehouseCatalogs = new SqlLakehouseCatalogStore(store.sql);
  const sealer = {
    seal: (plain: string) => secretBox.encrypt(plain, "tenant-initial-api-key"),
    open: (sealed: string) => secretBox.decrypt(sealed, "tenant-initial-api-key"),
  };
  const faults = FaultInjector.parse(config.testFaults, config.testFaultPlan);
  const tenantAdmin = new TenantLifecycle(store, queue, tenants, sealer);
  // Real-time tables (spec 4.8) and their tiering to the lakehouse (docs/tiering.md).
  // Both time-series engines have them; any other engine answers 503.
  const realtimeTables =
    engines.timeseries instanceof DuckDbTimeSeries || engines.timeseries instanceof QuestDbTimeSeries
      ? engines.timeseries.realtime
      : NO_REALTIME_TABLES;
  const tieringState = new SqlTieringStateStore(store.sql);
  const objects =
    config.objectStore.kind === "s3"
      ? new S3ObjectStore(config.objectStore)
      : new LocalObjectStore({ root: config.objectStore.dir });
  const parquet = new DuckDbParquetInspector();
  const tieringView = new TieredTableReader({
    engine:
      engines.timeseries instanceof DuckDbTimeSeries || engines.timeseries instanceof QuestDbTimeSeries
        ? engines.timeseries.realtime
        : null,
    state: tieringState,
    objects,
  });
  const tieringScheduler =
    config.tiering.intervalMs > 0
      ? new TieringScheduler(queue, { intervalMs: config.tiering.intervalMs, logger })
      : null;
  const workers: JobWorker[] = [
    startProvisioningWorker(queue, {
      store,
      engines,
      catalogs: defaultCatalogWriter(lakehouseCatalogs),
      lakehouseUrl: config.lakehouse?.url ?? null,
      sealer,
      publishRouting: (tenantId) => tenants.invalidate(tenantId),
      faults,
      logger,
    }),
    queue.work(
      LAKEHOUSE_SYNC_QUEUE,
      makeLakehouseSyncHandler({ store, catalogs: lakehouseCatalogs, lakehouse, logger }),
      // One sync at a time per instance: each holds up to a full batch of rows in memory.
      { concurrency: 1 },
    ),
    queue.work(
      RTDB_TIERING_QUEUE,
      makeTieringHandler({
        store,
        tables: realtimeTables,
        state: tieringState,
        objects,
        parquet,
        stagingDir: join(config.dataDir, "tiering-staging"),
        logger,
      }),
      // One run at a time per instance; the job id per interval makes it one per installation.
      { concurrency: 1 },
    ),
    queue.work(
      SEC_INGEST_QUEUE,
      makeSecIngestHandler({
        store: financials.store,
        client: config.sec.online
          ? new SecClient({
              userAgent: config.sec.userAgent ?? "",
              baseUrl: config.sec.baseUrl,
              tickersUrl: config.sec.tickersUrl,
              maxRequestsPerSecond: config.sec.maxRequestsPerSecond,
            })
          : null,
        marketDir: config.sec.marketDataDir,
        logger,
      }),
      // One ingest at a time: each derives whole companies in memory.
      { concurrency: 1 },
    ),
  ];

  const mailer: Mailer | null = config.mail
    ? new SmtpMailer({
        ...config.mail,
        // The URL may carry credentials: log the failure's SMTP facts, never the options.
        onError: (err) =>
          logger.warn({ smtp: { code: err.code, command: err.command, response: err.response } }, "e-mail send failed"),
      })
    : null;

  // Editor documents: the REST view, the auth webhook and the rooms' persistence share one
  // service; CRDT merges of large documents run on a worker thread. Its re-index jobs are
  // worked below, once the document index and embedder exist.
  const editorStore = new SqlEditorDocumentStore(store.sql);
  const editorMerger = new CrdtMergePool();
  const editor = new EditorService({
    store: editorStore,
    queue,
    merger: editorMerger,
    verifyToken: (token) => auth.fromBearer(`Bearer ${token}`),
    requireActiveTenant: async (tenantId) => {
      await tenants.resolve(tenantId);
    },
    findUser: (id) => store.getUser(id),
    onReindexError: (err, docId) => logger.error({ err, doc_id: docId }, "could not queue an editor re-index"),
  });
  // Collaboration rooms (spec 4.7, docs/collab.md): persistence and auth through the editor
  // service in-process, or over HTTP when the collaboration server runs apart from the API.
  const collabPorts = config.collab.apiUrl
    ? {
        persistence: new HttpCollabPersistence({ baseUrl: config.collab.apiUrl, secret: secrets.collabSecret }),
        authorizer: new HttpCollabAuthorizer({ baseUrl: config.collab.apiUrl, secret: secrets.collabSecret }),
      }
    : { persistence: editor.persistence, authorizer: editor.authorizer };
  const collabRooms = new CollabRooms({
    persistence: collabPorts.persistence,
    // Rooms fan out between instances only when there are several (Redis, or a shared bus).
    pubsub: config.counters.kind === "redis" || opts.memoryBus ? pubsub : null,
    channelPrefix: `${config.redisPrefix}:collab`,
    instanceId: config.instanceId,
    logger,
    debounceMs: config.collab.debounceMs,
    maxWaitMs: config.collab.maxWaitMs,
    unloadDelayMs: config.collab.unloadMs,
  });
  editor.useLiveRooms(collabRooms);

  // Documents: extraction and embedding run in worker threads; the embedding model loads on
  // first use (warmed at start outside tests), so an instance without models still starts.
  const documentIndex = asDocumentIndex(engines.documentIndex);
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
  const documents = new DocumentService({
    index: documentIndex,
    embedder,
    extract: (file) => extractor.extract({ filename: file.filename, bytes: file.bytes, contentType: file.mimeType }),
    chunk: (doc) => chunkDocument(doc),
    // Read per request from the control plane, so a revoked crossing applies to the next search.
    barriers: new SqlBarrierStore(store.sql),
    llm: config.llm ? new OpenAiChatModel(config.llm) : null,
    financials: financials.store,
    gate: new UploadGate(config.uploads),
    permits: canSee,
  });
  // Editor documents are re-indexed into the same per-tenant index, with their access rules.
  workers.push(
    startEditorReindexWorker(
      queue,
      { store: editorStore, getTenant: (id) => store.getTenant(id) },
      documentIndex,
      embedder,
      (blocks) => chunkBlocks(blocks),
    ),
  );

  const news = new SqlNewsStore(store.sql);
  // The poller runs only when feeds are configured: it loads the ticker map (~100 ms).
  const newsPoller =
    config.news.feeds.length > 0
      ? new NewsPoller(
          config.news.feeds,
          {
            reader: new HttpFeedReader({
              timeoutMs: 20_000,
              maxBytes: 20 * 1024 * 1024,
              xBearerToken: config.news.xBearerToken,
            }),
            state: new SqlFeedStateStore(store.sql),
            ingestor: new NewsIngestor({
              store: news,
              publisher: newsHub,
              linker: createCompanyLinker(config.news.tickerMap),
              logger,
            }),
            logger,
          },
          { ...DEFAULT_POLLER, intervalMs: config.news.pollMs, concurrency: config.news.concurrency },
        )
      : null;
  newsPoller?.start();
  tieringScheduler?.start();

  let draining = false;
  const deps: AppDeps = {
    config,
    logger,
    store,
    queue,
    counters,
    pubsub,
    secrets,
    auth,
    tenants,
    rateLimiter,
    usage,
    tenantAdmin,
    lakehouse,
    lakehouseCatalogs,
    secretBox,
    financials: financials.store,
    revenueSegments: financials.store,
    research: openResearchStores(store.sql),
    newsHub,
    news,
    spreadsheets: new ExcelJsRenderer(),
    mailer,
    realtimeTables,
    realtimeTiering: tieringView,
    editor,
    documents,
    barriers: new SqlBarrierStore(store.sql),
    draining: () => draining,
  };
  const app = buildApp(deps);
  const collabSockets = collabHandlers({ rooms: collabRooms, authorizer: collabPorts.authorizer, logger });
  const websocket = makeWebSocketHandler({ newsHub, logger, collab: collabSockets });
  const collabUpgrade = { authorizer: collabPorts.authorizer, draining: () => draining };
  const fetch = (req: Request, server?: unknown): Response | Promise<Response> => {
    // The collaboration sockets are not Hono routes: their auth is per document, in-band.
    if (req.url.includes("/v1/editor/collab") && isCollabPath(new URL(req.url).pathname)) {
      return handleCollabUpgrade(req, server, collabUpgrade).then((r) => r ?? new Response(null));
    }
    return app.fetch(req, server);
  };

  let closed: Promise<void> | null = null;
  const close = () => {
    closed ??= (async () => {
      draining = true;
      // Order matters: stop polling and taking jobs, persist counts, then drop connections.
      await newsPoller?.close().catch((err) => logger.error({ err }, "closing the news poller"));
      tieringScheduler?.close();
      // Every room's final save goes through the editor service (store, re-index queue).
      await collabRooms.close().catch((err) => logger.error({ err }, "closing the collaboration rooms"));
      await Promise.all(workers.map((w) => w.close())).catch((err) => logger.error({ err }, "closing workers"));
      await queue.close().catch((err) => logger.error({ err }, "closing the job queue"));
      await parquet.close().catch((err) => logger.error({ err }, "closing the Parquet reader"));
      await usage.close().catch((err) => logger.error({ err }, "flushing usage"));
      await editorMerger.close().catch((err) => logger.error({ err }, "closing the editor's CRDT threads"));
      await tenants.close().catch((err) => logger.error({ err }, "closing the tenant directory"));
      // After the workers (ingest publishes into the hub), before pub/sub (the hub's channel).
      await newsHub.close().catch((err) => logger.error({ err }, "closing the news hub"));
      await pubsub.close().catch((err) => logger.error({ err }, "closing pub/sub"));
      await counters.close().catch((err) => logger.error({ err }, "closing counters"));
      await mailer?.close().catch((err) => logger.error({ err }, "closing the mailer"));
      await extractor.close().catch((err) => logger.error({ err }, "closing the extraction workers"));
      await embedder.close().catch((err) => logger.error({ err }, "closing the embedding model"));
      const owned = opts.sharedEngines ? [] : [engines.documentIndex, engines.timeseries, engines.graph];
      for (const engine of [...owned, engines.lakehouse]) {
        await engine?.close().catch((err) => logger.error({ err, engine: engine.engine }, "closing an engine"));
      }
      await financials.close().catch((err) => logger.error({ err }, "closing the financial data store"));
      await store.close().catch((err) => logger.error({ err }, "closing the control plane"));
    })();
    return closed;
  };
  const closeSockets = async () => {
    draining = true;
    // News streams hold no state worth saving: close them at once (1001), refuse new ones.
    const news = newsHub.closeStreams(1001, "server shutting down");
    if (news > 0) logger.info({ closed: news }, "closed the news streams for shutdown");
    await collabRooms.close().catch((err) => logger.error({ err }, "closing the collaboration rooms"));
    collabSockets.closeAll(1001, "server shutting down");
  };
  return {
    deps,
    store,
    financials: financials.store,
    engines,
    faults,
    app,
    fetch,
    collabRooms,
    websocket,
    closeSockets,
    close,
  };
}

/** The document index port of the configured engine; an engine without one is never ready (503). */
function asDocumentIndex(engine: unknown): DocumentIndexPort {
  const e = engine as Partial<DocumentIndexPort>;
  if (typeof e.ready === "function" && typeof e.search === "function" && typeof e.putDocument === "function") {
    return engine as DocumentIndexPort;
  }
  return {
    ready: async () => false,
    putDocument: async () => {
      throw new AppError("unavailable", "no document index engine is configured");
    },
    deleteDocument: async () => false,
    getDocument: async () => null,
    search: async () => {
      throw new AppError("unavailable", "no document index engine is configured");
    },
  };
}

/** Starts the HTTP server and wires graceful shutdown on SIGTERM/SIGINT. */
export async function startServer(config: Config): Promise<{ server: Server<SocketData>; service: Service }> {
  const service = await buildService(config);
  const { logger } = service.deps;
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    fetch: service.fetch,
    websocket: service.websocket,
    idleTimeout: 60,
  });
  logger.info({ url: `http://localhost:${server.port}`, profile: config.profile }, "cairn listening");

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: draining in-flight requests and jobs");
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: config.shutdownTimeoutMs }, "shutdown timed out; exiting");
      process.exit(1);
    }, config.shutdownTimeoutMs);
    // stop(false): stop accepting, let in-flight requests finish. It also waits for open
    // sockets, so the collaboration rooms save and close theirs meanwhile.
    const httpStopped = server.stop(false);
    await service.closeSockets();
    await httpStopped;
    await service.close();
    clearTimeout(timer);
    logger.info("shutdown complete");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  return { server, service };
}

if (import.meta.main) {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(1);
  }
  await startServer(config);
}
