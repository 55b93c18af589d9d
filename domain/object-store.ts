/**
 * Object storage (ARCHITECTURE: a local directory embedded, an S3-compatible store at
 * scale). Keys are `/`-separated paths under the store's root; the first segment is the
 * tenant's namespace wherever a tenant owns the object.
 */
import { AppError } from "./errors.ts";

export interface ObjectStore {
  /** Where the objects live, for people and notes: `file:///abs/dir` or `s3://bucket/prefix`. */
  readonly location: string;
  /** Publishes a local file under `key` atomically: readers see the old object or the new one, never a part. */
  put(key: string, file: string): Promise<{ bytes: number }>;
  /** Null when there is no object under `key`. */
  stat(key: string): Promise<{ bytes: number } | null>;
  /** A local path a reader (DuckDB read_parquet) can open: the object itself for a local directory. */
  localPath(key: string): Promise<string>;
  delete(key: string): Promise<void>;
  /** Keys under a prefix (a `/`-ended folder), sorted. */
  list(prefix: string): Promise<string[]>;
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.=-]{0,254}$/;

/** Refuses keys that could leave the root: empty, absolute, `..`, odd characters. */
export function checkObjectKey(key: string): string {
  const parts = key.split("/");
  if (key.length > 1024 || parts.some((p) => !SEGMENT.test(p) || p.includes(".."))) {
    throw new AppError("bad_request", `invalid object key '${key}'`);
  }
  return key;
}
