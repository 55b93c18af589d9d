/**
 * Storage beyond the control plane: the lab's lakehouse gateway, the time-series engine
 * (QuestDB or embedded DuckDB), tiering of real-time tables, and object storage.
 */
import { join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError, optionalSecret, optionalUrl } from "./env.ts";

export const storageEnv = z.object({
  /** The lab's lakehouse gateway (docs/lakehouse-gateway.md); unset = no lakehouse configured. */
  CAIRN_LAKEHOUSE_URL: optionalUrl(["http", "https"]),
  /** Shared token the service sends to the lab gateway (X-Lab-Token). */
  CAIRN_LAB_TOKEN: optionalSecret(16),
  /** QuestDB's HTTP endpoint (/exec and ILP over HTTP) for real-time tables; unset = the embedded DuckDB engine. */
  CAIRN_QUESTDB_URL: optionalUrl(["http", "https"]),
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
});

export type StorageEnv = z.infer<typeof storageEnv>;

export interface StorageConfig {
  readonly lakehouse: { url: string; token: string | undefined } | null;
  /** The time-series engine's server (docs/rtdb.md); null = embedded DuckDB under dataDir. */
  readonly questdb: { url: string } | null;
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

/** `dataDir`: the resolved CAIRN_DATA_DIR (default home of local objects and the S3 read cache). */
export function storageConfig(e: StorageEnv, dataDir: string): StorageConfig {
  return {
    lakehouse: e.CAIRN_LAKEHOUSE_URL ? { url: e.CAIRN_LAKEHOUSE_URL, token: e.CAIRN_LAB_TOKEN } : null,
    questdb: e.CAIRN_QUESTDB_URL ? { url: e.CAIRN_QUESTDB_URL } : null,
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
  };
}
