/**
 * One typed configuration object, parsed once from the environment at start.
 * The profile follows from which engine URLs are set: none set means the embedded
 * profile (SQLite, in-process queue and counters); each URL moves one capability
 * onto its real engine. A bad value fails start-up with a message naming it.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { SOURCE_TYPES, type SourceType } from "./domain/news.ts";

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine(
      (v) => v === undefined || protocols.some((p) => v.startsWith(`${p}://`)),
      `must be a URL starting with ${protocols.map((p) => `${p}://`).join(" or ")}`,
    );

const optionalSecret = (min: number) =>
  z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine((v) => v === undefined || v.length >= min, `must be at least ${min} characters`);

/** CAIRN_NEWS_FEEDS: comma-separated `type:url` (type rss, gdelt, reddit or twitter). */
const newsFeeds = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .superRefine((entries, ctx) => {
    for (const entry of entries) {
      const at = entry.indexOf(":");
      const type = entry.slice(0, at);
      const url = entry.slice(at + 1);
      if (at < 1 || !(SOURCE_TYPES as readonly string[]).includes(type) || !/^https?:\/\/\S+$/.test(url)) {
        ctx.addIssue({
          code: "custom",
          message: `entry '${entry}' must be type:url with type one of ${SOURCE_TYPES.join(", ")} and an http(s) URL`,
        });
      }
    }
  })
  .transform((entries) =>
    entries.map((e) => ({ type: e.slice(0, e.indexOf(":")) as SourceType, url: e.slice(e.indexOf(":") + 1) })),
  );

/** Local embedding model choices (adapters/embeddings/models.ts EMBEDDING_MODELS; a test keeps them equal). */
export const EMBEDDING_MODEL_CHOICES = ["bge-small-en-v1.5+e5-small-v2", "bge-base-en-v1.5"] as const;
export type EmbeddingModelChoice = (typeof EMBEDDING_MODEL_CHOICES)[number];

const boolFlag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((v) => v === "1" || v === "true");

export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("0.0.0.0"),
  CAIRN_DATA_DIR: z.string().min(1).default(".cairn-data"),
  DATABASE_URL: optionalUrl(["postgres", "postgresql"]),
  REDIS_URL: optionalUrl(["redis", "rediss"]),
  /** Key prefix on Redis, so several installations (or test runs) can share one server. */
  CAIRN_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1-64 characters of letters, digits, _ . : -")
    .default("cairn"),
  /** The lab's lakehouse gateway (docs/lakehouse-gateway.md); unset = no lakehouse configured. */
  CAIRN_LAKEHOUSE_URL: optionalUrl(["http", "https"]),
  /** QuestDB's HTTP endpoint (/exec and ILP over HTTP) for real-time tables; unset = the embedded DuckDB engine. */
  CAIRN_QUESTDB_URL: optionalUrl(["http", "https"]),
  /** OpenSearch for the per-tenant document indexes (docs/search.md); unset = embedded SQLite files. */
  CAIRN_OPENSEARCH_URL: optionalUrl(["http", "https"]),
  /** Replicas of each tenant's OpenSearch index (0 on a single node). */
  CAIRN_OPENSEARCH_REPLICAS: z.coerce.number().int().min(0).max(5).default(0),
  /** Threads that run embedded document searches (brute-force KNN) off the event loop; 0 = inline. */
  CAIRN_SEARCH_THREADS: z.coerce.number().int().min(0).max(64).default(1),
  /** Shared token the service sends to the lab gateway (X-Lab-Token). */
  CAIRN_LAB_TOKEN: optionalSecret(16),
  /**
   * Key ring for secrets encrypted at rest (catalog storage keys): `id:base64(32 bytes)`,
   * comma-separated, the first one encrypts. Unset: a key is generated into CAIRN_DATA_DIR.
   */
  CAIRN_SECRET_KEYS: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine(
      (v) =>
        v === undefined ||
        v.split(",").every((part) => {
          const [id, key] = part.split(":");
          return !!id && /^[A-Za-z0-9_-]{1,32}$/.test(id) && !!key && Buffer.from(key, "base64").length === 32;
        }),
      "must be id:base64key[,id:base64key...] with 32-byte keys",
    ),
  CAIRN_JWT_SECRET: optionalSecret(32),
  CAIRN_JWKS_URL: optionalUrl(["http", "https"]),
  CAIRN_JWT_ISSUER: z.string().min(1).default("cairn"),
  CAIRN_JWT_AUDIENCE: z.string().min(1).default("cairn-api"),
  CAIRN_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(31_536_000).default(86_400),
  CAIRN_ADMIN_API_KEY: optionalSecret(24),
  CAIRN_COLLAB_SECRET: optionalSecret(16),
  /** Collaboration rooms: save this long after the last change (docs/collab.md)... */
  CAIRN_COLLAB_DEBOUNCE_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  /** ...but never later than this after the first unsaved change. */
  CAIRN_COLLAB_MAX_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  /** Grace after the last client leaves before a room is flushed and unloaded. */
  CAIRN_COLLAB_UNLOAD_MS: z.coerce.number().int().min(1).max(3_600_000).default(1_000),
  /** Set when the collaboration server runs apart: it loads, stores and authorises through this API. */
  CAIRN_COLLAB_API_URL: optionalUrl(["http", "https"]),
  /** Outgoing mail for POST /v1/share/email; unset = e-mail sharing answers 503. */
  CAIRN_SMTP_URL: optionalUrl(["smtp", "smtps"]),
  /** From address of shared mail; a bare address or `Name <address>`. */
  CAIRN_MAIL_FROM: z
    .string()
    .trim()
    .regex(/^(?:[^<>\r\n]{0,100}<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, "must be an address or Name <address>")
    .default("Cairn <no-reply@cairn.local>"),
  /** Online SEC refresh from data.sec.gov (pipelines/sec-ingest); needs CAIRN_SEC_USER_AGENT. */
  CAIRN_SEC_ONLINE: boolFlag,
  /** Sent on every SEC request, as SEC fair access requires: "Company Name contact@example.com". */
  CAIRN_SEC_USER_AGENT: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine((v) => v === undefined || /\S+.*\s+\S+@\S+\.\S+/.test(v), "must be a name and a contact e-mail"),
  CAIRN_SEC_BASE_URL: optionalUrl(["http", "https"]),
  CAIRN_SEC_TICKERS_URL: optionalUrl(["http", "https"]),
  /** Requests per second to the SEC; its fair-access limit is 10. */
  CAIRN_SEC_MAX_RPS: z.coerce.number().positive().max(10).default(10),
  /** Daily/monthly closing prices for market-based ratios (a folder like the shared data's market/). */
  CAIRN_MARKET_DATA_DIR: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** News feeds the ingest runner polls (pipelines/news); unset = no poller. */
  CAIRN_NEWS_FEEDS: newsFeeds,
  /** Time between polls of one feed (after a failure: exponential backoff instead). */
  CAIRN_NEWS_POLL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  /** Most feeds fetched at the same time. */
  CAIRN_NEWS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** A fresher SEC company_tickers.json (or the bundled TSV format) for company linking. */
  CAIRN_NEWS_TICKER_MAP: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** Bearer token sent to X API v2 feeds (twitter:https://api.x.com/2/tweets/search/recent?...). */
  CAIRN_NEWS_X_BEARER_TOKEN: optionalSecret(16),
  CAIRN_LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  CAIRN_RATE_LIMIT_SCALE: z.coerce.number().positive().max(1e9).default(1),
  CAIRN_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  CAIRN_ROUTING_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  CAIRN_USAGE_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  CAIRN_INSTANCE_ID: z.string().min(1).optional(),
  /** How long a claimed job is held without renewal; a crashed worker's job waits this long. */
  CAIRN_JOB_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Time between tiering runs of real-time table partitions (docs/tiering.md); 0 = no schedule. */
  CAIRN_TIERING_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(3_600_000)
    .refine((v) => v === 0 || v >= 1_000, "must be 0 (off) or at least 1000"),
  /** Object storage root of the embedded profile; default <CAIRN_DATA_DIR>/lakehouse/objects. */
  CAIRN_OBJECT_STORE_DIR: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** S3-compatible object storage instead of the directory: `s3://bucket[/prefix]`. */
  CAIRN_OBJECT_STORE_URL: optionalUrl(["s3"]),
  /** The S3 endpoint (MinIO, Ceph RGW, ...); unset = AWS. Credentials also come from S3_* / AWS_* variables. */
  CAIRN_S3_ENDPOINT: optionalUrl(["http", "https"]),
  CAIRN_S3_REGION: z.string().trim().min(1).default("us-east-1"),
  CAIRN_S3_ACCESS_KEY_ID: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_S3_SECRET_ACCESS_KEY: optionalSecret(8),
  /** Test-only: faults for the provisioning pipeline, e.g. `step_4:crash_after` (needs CAIRN_TEST_FAULTS). */
  CAIRN_TEST_FAULT_PLAN: z.string().optional(),
  /** Local embedding models (docs/embeddings.md), installed by `scripts/setup.sh --models`. */
  CAIRN_EMBEDDING_MODEL: z.enum(EMBEDDING_MODEL_CHOICES).default("bge-small-en-v1.5+e5-small-v2"),
  /** Where set-up put the models; default ${XDG_CACHE_HOME:-~/.cache}/cairn/models. */
  CAIRN_MODELS_DIR: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** ONNX Runtime threads for the local models; 0 = one per core. */
  CAIRN_EMBEDDING_THREADS: z.coerce.number().int().min(0).max(256).default(0),
  /** Texts per inference batch (local) or per request (remote). */
  CAIRN_EMBEDDING_BATCH: z.coerce.number().int().min(1).max(512).default(16),
  /** A remote embeddings endpoint instead of the local models: OpenAI-compatible or TEI /embed. */
  CAIRN_EMBEDDINGS_URL: optionalUrl(["http", "https"]),
  /** Wire format of CAIRN_EMBEDDINGS_URL; default tei when the path ends in /embed, else openai. */
  CAIRN_EMBEDDINGS_API: z.enum(["openai", "tei"]).optional(),
  /** Model name sent to an OpenAI-compatible endpoint. */
  CAIRN_EMBEDDINGS_MODEL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_EMBEDDINGS_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** Width the endpoint must return; the index stores 768-d vectors (spec 8.2). */
  CAIRN_EMBEDDINGS_DIM: z.coerce
    .number()
    .int()
    .default(768)
    .refine((v) => v === 768, "must be 768: the document index stores 768-dimensional vectors (spec 8.2)"),
  /** Prefixes the remote model expects on queries / passages (e.g. "query: " for e5). */
  CAIRN_EMBEDDINGS_QUERY_PREFIX: z.string().default(""),
  CAIRN_EMBEDDINGS_PASSAGE_PREFIX: z.string().default(""),
  /** OpenAI-compatible chat model for agentic answers (base URL, e.g. https://api.openai.com/v1); unset = extractive. */
  CAIRN_LLM_URL: optionalUrl(["http", "https"]),
  CAIRN_LLM_MODEL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_LLM_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_LLM_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  /** OpenAI-compatible vision model for image descriptions (base URL); unset = descriptions derived from layout and OCR. */
  CAIRN_VISION_URL: optionalUrl(["http", "https"]),
  CAIRN_VISION_MODEL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_VISION_API_KEY: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  CAIRN_VISION_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** Extraction worker threads (documents parsed/OCR'd at once), deadline per document, OCR page cap. */
  CAIRN_EXTRACT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  CAIRN_EXTRACT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
  CAIRN_EXTRACT_MAX_OCR_PAGES: z.coerce.number().int().min(0).max(10_000).default(50),
  /** Uploads processed at once per instance, and how many may wait (and for how long) before 503. */
  CAIRN_UPLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  CAIRN_UPLOAD_QUEUE: z.coerce.number().int().min(0).max(1_000).default(8),
  CAIRN_UPLOAD_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  /** Test-only fault hooks (provisioning failure injection). Refused when NODE_ENV=production. */
  CAIRN_TEST_FAULTS: boolFlag,
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
});

export type Env = z.infer<typeof EnvSchema>;

export type Profile = "embedded" | "cluster";

export interface Config {
  readonly profile: Profile;
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly controlPlane: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };
  readonly queue: { kind: "embedded" } | { kind: "redis"; url: string };
  readonly counters: { kind: "memory" } | { kind: "redis"; url: string };
  readonly redisPrefix: string;
  readonly jwt: {
    secret: string | undefined;
    jwksUrl: string | undefined;
    issuer: string;
    audience: string;
    ttlSeconds: number;
  };
  readonly lakehouse: { url: string; token: string | undefined } | null;
  /** The time-series engine's server (docs/rtdb.md); null = embedded DuckDB under dataDir. */
  readonly questdb: { url: string } | null;
  /** The document index's server (docs/search.md); null = one SQLite file per tenant under dataDir. */
  readonly opensearch: { url: string; replicas: number } | null;
  /** Search threads of the embedded document index. */
  readonly searchThreads: number;
  /** Parsed key ring, first = active; null means "generate/load one under dataDir". */
  readonly secretKeys: { id: string; key: Buffer }[] | null;
  readonly adminApiKey: string | undefined;
  readonly collabSecret: string | undefined;
  /** Collaboration rooms (docs/collab.md); apiUrl set = persistence and auth over HTTP. */
  readonly collab: { debounceMs: number; maxWaitMs: number; unloadMs: number; apiUrl: string | undefined };
  /** SMTP server for e-mail sharing; null = not configured. */
  readonly mail: { url: string; from: string } | null;
  /** SEC ingest (pipelines/sec-ingest): online refresh settings and the market-data folder. */
  readonly sec: {
    online: boolean;
    userAgent: string | undefined;
    baseUrl: string;
    tickersUrl: string;
    maxRequestsPerSecond: number;
    marketDataDir: string | null;
  };
  /** News ingest runner: feeds to poll (empty = no poller), pacing, company-linking data. */
  readonly news: {
    feeds: { type: SourceType; url: string }[];
    pollMs: number;
    concurrency: number;
    tickerMap: string | undefined;
    xBearerToken: string | undefined;
  };
  readonly logLevel: Env["CAIRN_LOG_LEVEL"];
  readonly rateLimitScale: number;
  readonly shutdownTimeoutMs: number;
  readonly routingCacheTtlMs: number;
  readonly usageFlushMs: number;
  readonly instanceId: string;
  readonly jobLeaseMs: number;
  /** Tiering of real-time tables: time between runs (0 = no schedule). */
  readonly tiering: { intervalMs: number };
  /** Object storage: a local directory (embedded) or an S3-compatible bucket (cacheDir: local copies for readers). */
  readonly objectStore:
    | { kind: "local"; dir: string }
    | {
        kind: "s3";
        bucket: string;
        prefix: string;
        endpoint: string | null;
        region: string;
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
        cacheDir: string;
      };
  readonly testFaults: boolean;
  readonly testFaultPlan: string | undefined;
  /** Sentence embeddings for documents: local ONNX models, or a remote endpoint when its URL is set. */
  readonly embeddings:
    | { kind: "onnx"; model: EmbeddingModelChoice; modelsDir: string; threads: number; batchSize: number }
    | {
        kind: "http";
        url: string;
        api: "openai" | "tei" | undefined;
        model: string | undefined;
        apiKey: string | undefined;
        dim: number;
        queryPrefix: string;
        passagePrefix: string;
        batchSize: number;
      };
  /** Chat model for agentic answers; null = extractive answers. */
  readonly llm: { url: string; model: string; apiKey: string | undefined; timeoutMs: number } | null;
  /** Per-instance bound on document uploads in progress. */
  readonly uploads: { concurrency: number; maxQueued: number; maxWaitMs: number };
  /** Text extraction (adapters/extract): worker threads, deadline, OCR cap; vision model or null. */
  readonly extraction: {
    concurrency: number;
    timeoutMs: number;
    maxOcrPages: number;
    vision: { url: string; model: string; apiKey: string | undefined; timeoutMs: number } | null;
  };
  readonly nodeEnv: Env["NODE_ENV"];
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** `s3://bucket/a/b/` -> bucket and prefix `a/b`. */
function s3Location(url: string): { bucket: string; prefix: string } {
  const rest = url.slice("s3://".length);
  const slash = rest.indexOf("/");
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = slash < 0 ? "" : rest.slice(slash + 1).replace(/^\/+|\/+$/g, "");
  if (
    !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) ||
    !/^[A-Za-z0-9_./=-]*$/.test(prefix) ||
    prefix.includes("..")
  ) {
    throw new ConfigError(`Invalid configuration:\n  CAIRN_OBJECT_STORE_URL: '${url}' must be s3://bucket[/prefix]`);
  }
  return { bucket, prefix };
}

/** Parse the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  if (e.CAIRN_SEC_ONLINE && !e.CAIRN_SEC_USER_AGENT) {
    throw new ConfigError(
      "Invalid configuration:\n  CAIRN_SEC_USER_AGENT: required when CAIRN_SEC_ONLINE=1 (SEC fair access)",
    );
  }
  if (e.CAIRN_LLM_URL && !e.CAIRN_LLM_MODEL) {
    throw new ConfigError("Invalid configuration:\n  CAIRN_LLM_MODEL: required when CAIRN_LLM_URL is set");
  }
  if (e.CAIRN_VISION_URL && !e.CAIRN_VISION_MODEL) {
    throw new ConfigError("Invalid configuration:\n  CAIRN_VISION_MODEL: required when CAIRN_VISION_URL is set");
  }
  if (e.CAIRN_TEST_FAULTS && e.NODE_ENV === "production") {
    throw new ConfigError("Invalid configuration:\n  CAIRN_TEST_FAULTS: must be off when NODE_ENV=production");
  }
  const dataDir = resolve(e.CAIRN_DATA_DIR);
  const anyEngine = e.DATABASE_URL !== undefined || e.REDIS_URL !== undefined;
  return {
    profile: anyEngine ? "cluster" : "embedded",
    port: e.PORT,
    host: e.HOST,
    dataDir,
    controlPlane: e.DATABASE_URL
      ? { kind: "postgres", url: e.DATABASE_URL }
      : { kind: "sqlite", path: resolve(dataDir, "control-plane.sqlite") },
    queue: e.REDIS_URL ? { kind: "redis", url: e.REDIS_URL } : { kind: "embedded" },
    counters: e.REDIS_URL ? { kind: "redis", url: e.REDIS_URL } : { kind: "memory" },
    redisPrefix: e.CAIRN_REDIS_PREFIX,
    jwt: {
      secret: e.CAIRN_JWT_SECRET,
      jwksUrl: e.CAIRN_JWKS_URL,
      issuer: e.CAIRN_JWT_ISSUER,
      audience: e.CAIRN_JWT_AUDIENCE,
      ttlSeconds: e.CAIRN_TOKEN_TTL_SECONDS,
    },
    lakehouse: e.CAIRN_LAKEHOUSE_URL ? { url: e.CAIRN_LAKEHOUSE_URL, token: e.CAIRN_LAB_TOKEN } : null,
    questdb: e.CAIRN_QUESTDB_URL ? { url: e.CAIRN_QUESTDB_URL } : null,
    opensearch: e.CAIRN_OPENSEARCH_URL ? { url: e.CAIRN_OPENSEARCH_URL, replicas: e.CAIRN_OPENSEARCH_REPLICAS } : null,
    searchThreads: e.CAIRN_SEARCH_THREADS,
    secretKeys: e.CAIRN_SECRET_KEYS
      ? e.CAIRN_SECRET_KEYS.split(",").map((part) => {
          const [id = "", key = ""] = part.split(":");
          return { id, key: Buffer.from(key, "base64") };
        })
      : null,
    adminApiKey: e.CAIRN_ADMIN_API_KEY,
    collabSecret: e.CAIRN_COLLAB_SECRET,
    collab: {
      debounceMs: e.CAIRN_COLLAB_DEBOUNCE_MS,
      maxWaitMs: Math.max(e.CAIRN_COLLAB_MAX_WAIT_MS, e.CAIRN_COLLAB_DEBOUNCE_MS),
      unloadMs: e.CAIRN_COLLAB_UNLOAD_MS,
      apiUrl: e.CAIRN_COLLAB_API_URL,
    },
    mail: e.CAIRN_SMTP_URL ? { url: e.CAIRN_SMTP_URL, from: e.CAIRN_MAIL_FROM } : null,
    sec: {
      online: e.CAIRN_SEC_ONLINE,
      userAgent: e.CAIRN_SEC_USER_AGENT,
      baseUrl: e.CAIRN_SEC_BASE_URL ?? "https://data.sec.gov",
      tickersUrl: e.CAIRN_SEC_TICKERS_URL ?? "https://www.sec.gov/files/company_tickers.json",
      maxRequestsPerSecond: e.CAIRN_SEC_MAX_RPS,
      marketDataDir: e.CAIRN_MARKET_DATA_DIR ? resolve(e.CAIRN_MARKET_DATA_DIR) : null,
    },
    news: {
      feeds: e.CAIRN_NEWS_FEEDS,
      pollMs: e.CAIRN_NEWS_POLL_MS,
      concurrency: e.CAIRN_NEWS_CONCURRENCY,
      tickerMap: e.CAIRN_NEWS_TICKER_MAP ? resolve(e.CAIRN_NEWS_TICKER_MAP) : undefined,
      xBearerToken: e.CAIRN_NEWS_X_BEARER_TOKEN,
    },
    logLevel: e.CAIRN_LOG_LEVEL,
    rateLimitScale: e.CAIRN_RATE_LIMIT_SCALE,
    shutdownTimeoutMs: e.CAIRN_SHUTDOWN_TIMEOUT_MS,
    routingCacheTtlMs: e.CAIRN_ROUTING_CACHE_TTL_MS,
    usageFlushMs: e.CAIRN_USAGE_FLUSH_MS,
    instanceId: e.CAIRN_INSTANCE_ID ?? `${process.pid}-${crypto.randomUUID().slice(0, 8)}`,
    jobLeaseMs: e.CAIRN_JOB_LEASE_MS,
    tiering: { intervalMs: e.CAIRN_TIERING_INTERVAL_MS },
    objectStore: e.CAIRN_OBJECT_STORE_URL
      ? {
          kind: "s3",
          ...s3Location(e.CAIRN_OBJECT_STORE_URL),
          endpoint: e.CAIRN_S3_ENDPOINT ?? null,
          region: e.CAIRN_S3_REGION,
          accessKeyId: e.CAIRN_S3_ACCESS_KEY_ID,
          secretAccessKey: e.CAIRN_S3_SECRET_ACCESS_KEY,
          cacheDir: resolve(dataDir, "object-cache"),
        }
      : { kind: "local", dir: resolve(e.CAIRN_OBJECT_STORE_DIR ?? join(dataDir, "lakehouse", "objects")) },
    testFaults: e.CAIRN_TEST_FAULTS,
    testFaultPlan: e.CAIRN_TEST_FAULTS ? e.CAIRN_TEST_FAULT_PLAN : undefined,
    embeddings: e.CAIRN_EMBEDDINGS_URL
      ? {
          kind: "http",
          url: e.CAIRN_EMBEDDINGS_URL,
          api: e.CAIRN_EMBEDDINGS_API,
          model: e.CAIRN_EMBEDDINGS_MODEL,
          apiKey: e.CAIRN_EMBEDDINGS_API_KEY,
          dim: e.CAIRN_EMBEDDINGS_DIM,
          queryPrefix: e.CAIRN_EMBEDDINGS_QUERY_PREFIX,
          passagePrefix: e.CAIRN_EMBEDDINGS_PASSAGE_PREFIX,
          batchSize: e.CAIRN_EMBEDDING_BATCH,
        }
      : {
          kind: "onnx",
          model: e.CAIRN_EMBEDDING_MODEL,
          modelsDir: resolve(
            e.CAIRN_MODELS_DIR ?? join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cairn", "models"),
          ),
          threads: e.CAIRN_EMBEDDING_THREADS,
          batchSize: e.CAIRN_EMBEDDING_BATCH,
        },
    llm:
      e.CAIRN_LLM_URL && e.CAIRN_LLM_MODEL
        ? {
            url: e.CAIRN_LLM_URL,
            model: e.CAIRN_LLM_MODEL,
            apiKey: e.CAIRN_LLM_API_KEY,
            timeoutMs: e.CAIRN_LLM_TIMEOUT_MS,
          }
        : null,
    extraction: {
      concurrency: e.CAIRN_EXTRACT_CONCURRENCY,
      timeoutMs: e.CAIRN_EXTRACT_TIMEOUT_MS,
      maxOcrPages: e.CAIRN_EXTRACT_MAX_OCR_PAGES,
      vision:
        e.CAIRN_VISION_URL && e.CAIRN_VISION_MODEL
          ? {
              url: e.CAIRN_VISION_URL,
              model: e.CAIRN_VISION_MODEL,
              apiKey: e.CAIRN_VISION_API_KEY,
              timeoutMs: e.CAIRN_VISION_TIMEOUT_MS,
            }
          : null,
    },
    uploads: {
      concurrency: e.CAIRN_UPLOAD_CONCURRENCY,
      maxQueued: e.CAIRN_UPLOAD_QUEUE,
      maxWaitMs: e.CAIRN_UPLOAD_WAIT_MS,
    },
    nodeEnv: e.NODE_ENV,
  };
}
