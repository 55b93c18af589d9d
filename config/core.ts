/**
 * Core configuration: the server, the profile's engines (control plane, queue, counters),
 * authentication, limits and timers, and the test-only switches.
 */
import { resolve } from "node:path";
import { z } from "zod";
import { boolFlag, ConfigError, optionalSecret, optionalUrl } from "./env.ts";

export const coreEnv = z.object({
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
  CAIRN_LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  CAIRN_RATE_LIMIT_SCALE: z.coerce.number().positive().max(1e9).default(1),
  CAIRN_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  CAIRN_ROUTING_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  CAIRN_USAGE_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  CAIRN_INSTANCE_ID: z.string().min(1).optional(),
  /** How long a claimed job is held without renewal; a crashed worker's job waits this long. */
  CAIRN_JOB_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Test-only: faults for the provisioning pipeline, e.g. `step_4:crash_after` (needs CAIRN_TEST_FAULTS). */
  CAIRN_TEST_FAULT_PLAN: z.string().optional(),
  /** Test-only fault hooks (provisioning failure injection). Refused when NODE_ENV=production. */
  CAIRN_TEST_FAULTS: boolFlag,
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
});

export type CoreEnv = z.infer<typeof coreEnv>;

export type Profile = "embedded" | "cluster";

export interface CoreConfig {
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
  /** Parsed key ring, first = active; null means "generate/load one under dataDir". */
  readonly secretKeys: { id: string; key: Buffer }[] | null;
  readonly adminApiKey: string | undefined;
  readonly logLevel: CoreEnv["CAIRN_LOG_LEVEL"];
  readonly rateLimitScale: number;
  readonly shutdownTimeoutMs: number;
  readonly routingCacheTtlMs: number;
  readonly usageFlushMs: number;
  readonly instanceId: string;
  readonly jobLeaseMs: number;
  readonly testFaults: boolean;
  readonly testFaultPlan: string | undefined;
  readonly nodeEnv: CoreEnv["NODE_ENV"];
}

/** Rules across core variables; throws ConfigError. */
export function checkCore(e: CoreEnv): void {
  if (e.CAIRN_TEST_FAULTS && e.NODE_ENV === "production") {
    throw new ConfigError("Invalid configuration:\n  CAIRN_TEST_FAULTS: must be off when NODE_ENV=production");
  }
}

export function coreConfig(e: CoreEnv): CoreConfig {
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
    secretKeys: e.CAIRN_SECRET_KEYS
      ? e.CAIRN_SECRET_KEYS.split(",").map((part) => {
          const [id = "", key = ""] = part.split(":");
          return { id, key: Buffer.from(key, "base64") };
        })
      : null,
    adminApiKey: e.CAIRN_ADMIN_API_KEY,
    logLevel: e.CAIRN_LOG_LEVEL,
    rateLimitScale: e.CAIRN_RATE_LIMIT_SCALE,
    shutdownTimeoutMs: e.CAIRN_SHUTDOWN_TIMEOUT_MS,
    routingCacheTtlMs: e.CAIRN_ROUTING_CACHE_TTL_MS,
    usageFlushMs: e.CAIRN_USAGE_FLUSH_MS,
    instanceId: e.CAIRN_INSTANCE_ID ?? `${process.pid}-${crypto.randomUUID().slice(0, 8)}`,
    jobLeaseMs: e.CAIRN_JOB_LEASE_MS,
    testFaults: e.CAIRN_TEST_FAULTS,
    testFaultPlan: e.CAIRN_TEST_FAULTS ? e.CAIRN_TEST_FAULT_PLAN : undefined,
    nodeEnv: e.NODE_ENV,
  };
}
