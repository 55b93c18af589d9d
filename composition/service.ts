/**
 * Builds the service: the adapters the profile names, the actors, the pipelines' workers,
 * the HTTP app and the socket handlers, and the shutdown that closes them in order.
 */
import type { WebSocketHandler } from "bun";
import type { Logger } from "pino";
import { type CollabRooms, NewsHub, RateLimiter, TenantDirectory, UsageRecorder } from "../actors/index.ts";
import { SqlLakehouseCatalogStore } from "../adapters/controlplane/index.ts";
import { GatewayLakehouse } from "../adapters/lakehouse/index.ts";
import { SqlNewsStore } from "../adapters/news/index.ts";
import type { MemoryBus } from "../adapters/pubsub/index.ts";
import { loadKeyRing } from "../adapters/secrets/index.ts";
import type { Config } from "../config.ts";
import { AppError } from "../domain/errors.ts";
import type { FinancialsStore, ResearchStores } from "../domain/financials/ports.ts";
import type { AgentPredictor } from "../domain/foundry/agents/ports.ts";
import { checkGraphFeature, graphKeyAt } from "../domain/foundry/graph/cypher.ts";
import type { LakehouseCatalogStore, LakehousePort } from "../domain/lakehouse/ports.ts";
import { NewsService } from "../domain/news/service.ts";
import type { ControlPlaneStore, JobQueue } from "../domain/ports.ts";
import { RtdbService } from "../domain/rtdb/service.ts";
import { SecretBox } from "../domain/secret-box.ts";
import { TenantsService } from "../domain/tenants/service.ts";
import { UserService } from "../domain/user/service.ts";
import { buildApp } from "../http/app.ts";
import { Authenticator } from "../http/auth/authenticator.ts";
import { JwtVerifier } from "../http/auth/jwt.ts";
import { type InstallationSecrets, loadInstallationSecrets } from "../http/auth/secrets.ts";
import type { AppDeps } from "../http/deps.ts";
import { createLogger } from "../http/logger.ts";
import type { BuildDeps } from "../pipelines/foundry/build/job.ts";
import { FaultInjector, type ProvisioningEngines, TenantLifecycle } from "../pipelines/tenants/provisioning/index.ts";
import {
  collabHandlers,
  handleCollabUpgrade,
  isCollabPath,
  makeWebSocketHandler,
  newsStreamGate,
  type SocketData,
} from "../sockets/index.ts";
import { openDocuments, openEditor } from "./documents.ts";
import {
  openControlPlane,
  openCounters,
  openDocumentIndex,
  openFinancials,
  openJobQueue,
  openMailer,
  openPubSub,
  openTimeSeries,
} from "./engines.ts";
import { openFinancialsService } from "./financials.ts";
import { openFoundry } from "./foundry.ts";
import { openFoundryAgents } from "./foundry-agents.ts";
import { type GraphEngine, openGraph } from "./graph.ts";
import { openTiering, startWorkers } from "./jobs.ts";
import { openLakehouseService } from "./lakehouse.ts";
import { openNewsPoller } from "./news.ts";
import { makeShutdown } from "./shutdown.ts";

export interface ServiceOptions {
  logger?: Logger;
  /** Lets several in-process instances share one in-memory bus (tests of the embedded profile). */
  memoryBus?: MemoryBus;
  /**
   * Engines owned by the caller and shared by several in-process instances, as a cluster
   * shares its document index, time-series and graph servers (tests); not closed here.
   */
  sharedEngines?: Omit<ProvisioningEngines, "lakehouse">;
  /** The deployed models Foundry agents predict with (tests pass their own; default: none deployed). */
  agentPredictor?: AgentPredictor;
}

export interface Service {
  readonly deps: AppDeps;
  readonly config: Config;
  readonly store: ControlPlaneStore;
  readonly queue: JobQueue;
  /** The installation's admin key, JWT and collaboration secrets (tests sign with them). */
  readonly secrets: InstallationSecrets;
  /** Public SEC fundamentals: read by the routes, written by the sec-ingest pipeline. */
  readonly financials: FinancialsStore;
  /** Transcripts, 8-K exhibits and topics (tests ingest into them). */
  readonly research: ResearchStores;
  readonly engines: ProvisioningEngines;
  /** Test-only provisioning fault hooks (inert unless CAIRN_TEST_FAULTS). */
  readonly faults: FaultInjector;
  /** Lakehouse catalogs and sync targets as stored (tests read what the routes wrote). */
  readonly lakehouseCatalogs: LakehouseCatalogStore;
  /** Encrypts secrets at rest (tests check the stored ciphertext). */
  readonly secretBox: SecretBox;
  /** What the dataset build job runs on (tests run a build against another lab engine with it). */
  readonly foundryBuild: BuildDeps;
  readonly app: ReturnType<typeof buildApp>;
  /** `server` is what Bun passes to fetch (needed for WebSocket upgrades). */
  fetch(req: Request, server?: unknown): Response | Promise<Response>;
  /** The collaboration rooms of this instance (spec 4.7). */
  readonly collabRooms: CollabRooms;
  /** The news hub: the NewsPublisher ingest calls, and the fan-out to this instance's streams. */
  readonly newsHub: NewsHub;
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

/** The control plane, the job queue, counters, pub/sub, credentials and the request-path actors. */
async function openFoundation(config: Config, opts: ServiceOptions) {
  const logger = opts.logger ?? createLogger(config.logLevel, { instance: config.instanceId });
  const store = await openControlPlane(config);
  const financials = await openFinancials(config, store);
  const queue = openJobQueue(config, store, logger);
  const counters = openCounters(config);
  const pubsub = openPubSub(config, opts.memoryBus, logger);
  const secrets = await loadInstallationSecrets(config, store);
  const auth = new Authenticator(store, new JwtVerifier({ ...config.jwt, secret: secrets.jwtSecret }), secrets);
  const tenants = new TenantDirectory(store, pubsub, { ttlMs: config.routingCacheTtlMs, logger });
  await tenants.start();
  // One channel per installation (the Redis prefix): every instance fans out every article.
  const newsHub = new NewsHub({ pubsub, channel: `${config.redisPrefix}:news:articles`, logger });
  await newsHub.start();
  const rateLimiter = new RateLimiter(counters, { scale: config.rateLimitScale });
  const usage = new UsageRecorder(store, {
    flushMs: config.usageFlushMs,
    onEvent: (e) => logger.warn({ usage: e }, "usage recorder"),
  });
  return { logger, store, financials, queue, counters, pubsub, secrets, auth, tenants, newsHub, rateLimiter, usage };
}

type Foundation = Awaited<ReturnType<typeof openFoundation>>;

/** The per-tenant engines provisioning creates namespaces in, and the lakehouse gateway. */
function openTenantEngines(config: Config, opts: ServiceOptions): ProvisioningEngines {
  const lakehouse: LakehousePort | null = config.lakehouse
    ? new GatewayLakehouse({ url: config.lakehouse.url, token: config.lakehouse.token })
    : null;
  return {
    ...(opts.sharedEngines ?? {
      documentIndex: openDocumentIndex(config),
      timeseries: openTimeSeries(config),
      graph: openGraph(config),
    }),
    lakehouse,
  };
}

/** Secrets at rest: the key ring, and the sealer of tenants' initial API keys. */
function openSecretBox(config: Config, logger: Logger) {
  const keyRing = loadKeyRing(config);
  if (config.profile === "cluster" && keyRing.source !== "env") {
    logger.warn(
      { key_file: keyRing.source.file },
      "CAIRN_SECRET_KEYS is not set: secrets are encrypted with a key kept in the data directory; " +
        "every instance needs the same key ring, so set CAIRN_SECRET_KEYS for multi-instance deployments",
    );
  }
  const secretBox = new SecretBox(keyRing.ring);
  const sealer = {
    seal: (plain: string) => secretBox.encrypt(plain, "tenant-initial-api-key"),
    open: (sealed: string) => secretBox.decrypt(sealed, "tenant-initial-api-key"),
  };
  return { secretBox, sealer };
}

/** Every area's domain service, the job workers and the background pollers and schedulers. */
function openAreas(config: Config, f: Foundation, engines: ProvisioningEngines, opts: ServiceOptions) {
  const { logger, store, queue, pubsub, auth, tenants } = f;
  const { secretBox, sealer } = openSecretBox(config, logger);
  const lakehouseCatalogs = new SqlLakehouseCatalogStore(store.sql);
  const faults = FaultInjector.parse(config.testFaults, config.testFaultPlan);
  const tenantAdmin = new TenantLifecycle(store, queue, tenants, sealer);
  const tiering = openTiering(config, store, queue, engines, logger);
  const workers = startWorkers({
    config,
    store,
    queue,
    engines,
    tenants,
    lakehouse: engines.lakehouse,
    lakehouseCatalogs,
    sealer,
    faults,
    financials: f.financials.store,
    tiering,
    logger,
  });
  const mailer = openMailer(config, logger);
  const financials = openFinancialsService({ store: f.financials.store, sql: store.sql, mailer });
  const editorArea = openEditor({
    config,
    store,
    queue,
    pubsub,
    memoryBus: opts.memoryBus,
    auth,
    tenants,
    secrets: f.secrets,
    logger,
  });
  const documentsArea = openDocuments({
    config,
    store,
    queue,
    engines,
    financials: f.financials.store,
    editorStore: editorArea.editorStore,
    workers,
    logger,
  });
  const news = new SqlNewsStore(store.sql);
  const newsPoller = openNewsPoller(config, store, news, f.newsHub, logger);
  newsPoller?.start();
  tiering.scheduler?.start();
  const foundry = openFoundry({
    config,
    store,
    queue,
    lakehouse: engines.lakehouse,
    // Tests may share a graph that is only a NamespacePort; both real engines are GraphPorts too.
    graph: "featureValues" in engines.graph ? (engines.graph as GraphEngine) : null,
    graphRules: {
      graphKey: graphKeyAt,
      checkGraph: (f, loc) => {
        checkGraphFeature(f, loc);
      },
    },
    realtime: { tables: tiering.realtimeTables, view: tiering.view, state: tiering.state },
    logger,
    financials: f.financials.store,
    documentIndex: engines.documentIndex,
  });
  workers.push(...foundry.workers);
  const agents = openFoundryAgents({
    config,
    store,
    queue,
    lakehouse: engines.lakehouse,
    logger,
    mailer,
    predictor: opts.agentPredictor,
    foundry: foundry.service,
  });
  workers.push(...agents.workers);
  agents.scheduler?.start();
  const services = {
    user: new UserService({ keys: store, keyCache: auth, usage: f.usage }),
    tenants: new TenantsService({ admin: tenantAdmin, store }),
    lakehouse: openLakehouseService({
      store,
      queue,
      gateway: engines.lakehouse,
      catalogs: lakehouseCatalogs,
      secretBox,
    }),
    financials: financials.service,
    news: new NewsService({ store: news, stream: newsStreamGate }),
    rtdb: new RtdbService({ tables: tiering.realtimeTables, tiering: tiering.view }),
    foundry: foundry.service,
    editor: editorArea.editor,
    documents: documentsArea.documents,
  };
  return {
    services,
    faults,
    lakehouseCatalogs,
    secretBox,
    foundryBuild: foundry.buildDeps,
    workers,
    mailer,
    tiering,
    newsPoller,
    financials,
    editorArea,
    documentsArea,
  };
}

/**
 * The sockets: the news stream and the collaboration rooms share Bun's one WebSocket handler;
 * a deactivated tenant's open sockets of both kinds are closed on every instance.
 */
async function openSockets(f: Foundation, editorArea: ReturnType<typeof openEditor>) {
  const { logger, tenants, newsHub } = f;
  await editorArea.collabRevocations.start();
  const collabSockets = collabHandlers({
    rooms: editorArea.collabRooms,
    authorizer: editorArea.collabAuthorizer,
    logger,
    revocations: editorArea.collabRevocations,
  });
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
  const websocket = makeWebSocketHandler({ newsHub, logger, collab: collabSockets });
  return { collabSockets, websocket };
}

export async function buildService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const f = await openFoundation(config, opts);
  const engines = openTenantEngines(config, opts);
  const areas = openAreas(config, f, engines, opts);
  let draining = false;
  const deps: AppDeps = {
    logger: f.logger,
    auth: f.auth,
    tenantResolver: f.tenants,
    rateLimiter: f.rateLimiter,
    usage: f.usage,
    readiness: { profile: config.profile, probes: { control_plane: f.store, queue: f.queue, counters: f.counters } },
    ...areas.services,
    draining: () => draining,
  };
  const app = buildApp(deps, { mcp: config.mcp });
  const { collabSockets, websocket } = await openSockets(f, areas.editorArea);
  const collabUpgrade = { authorizer: areas.editorArea.collabAuthorizer, draining: () => draining };
  const fetch = (req: Request, server?: unknown): Response | Promise<Response> => {
    // The collaboration sockets are not Hono routes: their auth is per document, in-band.
    if (req.url.includes("/v1/editor/collab") && isCollabPath(new URL(req.url).pathname)) {
      return handleCollabUpgrade(req, server, collabUpgrade).then((r) => r ?? new Response(null));
    }
    return app.fetch(req, server);
  };
  const { close, closeSockets } = makeShutdown({
    logger: f.logger,
    newsPoller: areas.newsPoller,
    tieringScheduler: areas.tiering.scheduler,
    collabRooms: areas.editorArea.collabRooms,
    collabSockets,
    workers: areas.workers,
    queue: f.queue,
    parquet: areas.tiering.parquet,
    usage: f.usage,
    editorMerger: areas.editorArea.editorMerger,
    tenants: f.tenants,
    newsHub: f.newsHub,
    pubsub: f.pubsub,
    counters: f.counters,
    mailer: areas.mailer,
    extractor: areas.documentsArea.extractor,
    embedder: areas.documentsArea.embedder,
    engines,
    sharedEngines: Boolean(opts.sharedEngines),
    financials: f.financials,
    store: f.store,
    startDraining: () => {
      draining = true;
    },
  });
  return {
    deps,
    config,
    store: f.store,
    queue: f.queue,
    secrets: f.secrets,
    financials: f.financials.store,
    research: areas.financials.research,
    engines,
    faults: areas.faults,
    lakehouseCatalogs: areas.lakehouseCatalogs,
    secretBox: areas.secretBox,
    foundryBuild: areas.foundryBuild,
    app,
    fetch,
    collabRooms: areas.editorArea.collabRooms,
    newsHub: f.newsHub,
    websocket,
    closeSockets,
    close,
  };
}
