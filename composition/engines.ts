/**
 * Engine factories of the composition root: each opens the adapter the configured profile
 * names (embedded or cluster) for one port.
 */
import { dirname, join } from "node:path";
import type { Logger } from "pino";
import {
  BARRIER_MIGRATIONS,
  FOUNDRY_MIGRATIONS,
  LAKEHOUSE_MIGRATIONS,
  SqlControlPlaneStore,
  sourceSchemaAttachments,
  TIERING_MIGRATIONS,
} from "../adapters/controlplane/index.ts";
import { READMODEL_MIGRATIONS } from "../adapters/controlplane/readmodel-migrations.ts";
import { MemoryCounterStore, RedisCounterStore } from "../adapters/counters/index.ts";
import { OpenSearchDocumentIndex, SqliteDocumentIndex } from "../adapters/docindex/index.ts";
import { EDITOR_MIGRATIONS } from "../adapters/editor/index.ts";
import { FINANCIALS_MIGRATIONS, SqlFinancialsStore } from "../adapters/financials/index.ts";
import { RESEARCH_MIGRATIONS } from "../adapters/financials/research.ts";
import { SmtpMailer } from "../adapters/mail/index.ts";
import { NEWS_MIGRATIONS } from "../adapters/news/index.ts";
import { LocalObjectStore, S3ObjectStore } from "../adapters/objectstore/index.ts";
import { type MemoryBus, MemoryPubSub, type PubSubErrorEvent, RedisPubSub } from "../adapters/pubsub/index.ts";
import { BullJobQueue, EmbeddedJobQueue, JOB_QUEUE_MIGRATIONS } from "../adapters/queue/index.ts";
import { DuckDbTimeSeries, QuestDbTimeSeries } from "../adapters/rtdb/index.ts";
import { migrate, PostgresClient, SqliteClient } from "../adapters/sql/index.ts";
import type { Config } from "../config.ts";
import type { DocumentIndexPort } from "../domain/documents/ports.ts";
import { AppError } from "../domain/errors.ts";
import type { FinancialsStore, Mailer } from "../domain/financials/ports.ts";
import type { ControlPlaneStore, CounterStore, JobQueue, PubSub } from "../domain/ports.ts";

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
    : new SqliteDocumentIndex({
        dataDir: config.dataDir,
        searchThreads: config.searchThreads,
        ann: { minChunks: config.annMinChunks },
      });
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
    ...FOUNDRY_MIGRATIONS,
    ...READMODEL_MIGRATIONS,
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

/** The job queue: BullMQ on Redis in the cluster profile, else the control plane's own table. */
export function openJobQueue(config: Config, store: ControlPlaneStore, logger: Logger): JobQueue {
  return config.queue.kind === "redis"
    ? new BullJobQueue({
        url: config.queue.url,
        prefix: `${config.redisPrefix}:bull`,
        lockDurationMs: config.jobLeaseMs,
        logger,
      })
    : new EmbeddedJobQueue(store.sql, { leaseMs: config.jobLeaseMs, logger });
}

/** Rate-limit counters: Redis when configured, else in memory (one instance). */
export function openCounters(config: Config): CounterStore {
  return config.counters.kind === "redis"
    ? new RedisCounterStore({ url: config.counters.url, prefix: `${config.redisPrefix}:` })
    : new MemoryCounterStore();
}

/** Pub/sub between instances: Redis when configured, else an in-memory bus (shared by tests). */
export function openPubSub(config: Config, memoryBus: MemoryBus | undefined, logger: Logger): PubSub {
  const onPubSubError = (e: PubSubErrorEvent) => logger.error({ pubsub: e }, "pub/sub listener failed");
  return config.counters.kind === "redis"
    ? new RedisPubSub({ url: config.counters.url, onError: onPubSubError })
    : new MemoryPubSub(memoryBus, { onError: onPubSubError });
}

/** Where tiered partitions are written: S3 or a local directory. */
export function openObjectStore(config: Config): S3ObjectStore | LocalObjectStore {
  return config.objectStore.kind === "s3"
    ? new S3ObjectStore(config.objectStore)
    : new LocalObjectStore({ root: config.objectStore.dir });
}

/** The SMTP mailer when outgoing mail is configured; null otherwise (e-mail sharing answers 503). */
export function openMailer(config: Config, logger: Logger): Mailer | null {
  return config.mail
    ? new SmtpMailer({
        ...config.mail,
        // The URL may carry credentials: log the failure's SMTP facts, never the options.
        onError: (err) =>
          logger.warn({ smtp: { code: err.code, command: err.command, response: err.response } }, "e-mail send failed"),
      })
    : null;
}

/** The real-time tables of a time-series engine that has them (both of ours do); null otherwise. */
export function realtimeEngine(
  timeseries: unknown,
): DuckDbTimeSeries["realtime"] | QuestDbTimeSeries["realtime"] | null {
  return timeseries instanceof DuckDbTimeSeries || timeseries instanceof QuestDbTimeSeries ? timeseries.realtime : null;
}

/** The document index port of the configured engine; an engine without one is never ready (503). */
export function asDocumentIndex(engine: unknown): DocumentIndexPort {
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
