/**
 * The shutdown sequence of the composition root. Order matters: stop polling and taking
 * jobs, save the rooms, persist counts, then drop connections and close the engines.
 */
import type { Logger } from "pino";
import type { CollabRooms, NewsHub, TenantDirectory, UsageRecorder } from "../actors/index.ts";
import type { ControlPlaneStore, CounterStore, JobQueue, JobWorker, PubSub } from "../domain/ports.ts";
import type { ProvisioningEngines } from "../pipelines/tenants/provisioning/index.ts";
import type { collabHandlers } from "../sockets/index.ts";

interface Closable {
  close(): Promise<unknown>;
}

/** Everything the service owns that shutdown closes, in no particular order (the order is below). */
export interface ShutdownParts {
  logger: Logger;
  newsPoller: Closable | null;
  tieringScheduler: { close(): void } | null;
  collabRooms: CollabRooms;
  collabSockets: ReturnType<typeof collabHandlers>;
  workers: JobWorker[];
  queue: JobQueue;
  parquet: Closable;
  usage: UsageRecorder;
  editorMerger: Closable;
  tenants: TenantDirectory;
  newsHub: NewsHub;
  pubsub: PubSub;
  counters: CounterStore;
  mailer: Closable | null;
  extractor: Closable;
  embedder: Closable;
  engines: ProvisioningEngines;
  /** The caller's engines are not closed here. */
  sharedEngines: boolean;
  financials: Closable;
  store: ControlPlaneStore;
  /** Marks the service draining: readiness fails and new sockets are refused. */
  startDraining(): void;
}

/** `close` (once, however often called) and `closeSockets`, as `Service` exposes them. */
export function makeShutdown(p: ShutdownParts): { close(): Promise<void>; closeSockets(): Promise<void> } {
  const { logger } = p;
  let closed: Promise<void> | null = null;
  const close = () => {
    closed ??= (async () => {
      p.startDraining();
      // Order matters: stop polling and taking jobs, persist counts, then drop connections.
      await p.newsPoller?.close().catch((err) => logger.error({ err }, "closing the news poller"));
      p.tieringScheduler?.close();
      // Every room's final save goes through the editor service (store, re-index queue).
      await p.collabRooms.close().catch((err) => logger.error({ err }, "closing the collaboration rooms"));
      await Promise.all(p.workers.map((w) => w.close())).catch((err) => logger.error({ err }, "closing workers"));
      await p.queue.close().catch((err) => logger.error({ err }, "closing the job queue"));
      await p.parquet.close().catch((err) => logger.error({ err }, "closing the Parquet reader"));
      await p.usage.close().catch((err) => logger.error({ err }, "flushing usage"));
      await p.editorMerger.close().catch((err) => logger.error({ err }, "closing the editor's CRDT threads"));
      await p.tenants.close().catch((err) => logger.error({ err }, "closing the tenant directory"));
      // After the workers (ingest publishes into the hub), before pub/sub (the hub's channel).
      await p.newsHub.close().catch((err) => logger.error({ err }, "closing the news hub"));
      await p.pubsub.close().catch((err) => logger.error({ err }, "closing pub/sub"));
      await p.counters.close().catch((err) => logger.error({ err }, "closing counters"));
      await p.mailer?.close().catch((err) => logger.error({ err }, "closing the mailer"));
      await p.extractor.close().catch((err) => logger.error({ err }, "closing the extraction workers"));
      await p.embedder.close().catch((err) => logger.error({ err }, "closing the embedding model"));
      const { engines } = p;
      const owned = p.sharedEngines ? [] : [engines.documentIndex, engines.timeseries, engines.graph];
      for (const engine of [...owned, engines.lakehouse]) {
        await engine?.close().catch((err) => logger.error({ err, engine: engine.engine }, "closing an engine"));
      }
      await p.financials.close().catch((err) => logger.error({ err }, "closing the financial data store"));
      await p.store.close().catch((err) => logger.error({ err }, "closing the control plane"));
    })();
    return closed;
  };
  const closeSockets = async () => {
    p.startDraining();
    // News streams hold no state worth saving: close them at once (1001), refuse new ones.
    const news = p.newsHub.closeStreams(1001, "server shutting down");
    if (news > 0) logger.info({ closed: news }, "closed the news streams for shutdown");
    await p.collabRooms.close().catch((err) => logger.error({ err }, "closing the collaboration rooms"));
    p.collabSockets.closeAll(1001, "server shutting down");
  };
  return { close, closeSockets };
}
