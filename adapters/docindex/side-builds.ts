/**
 * What a tenant file's side indexes (the HNSW graph, the keyword index) share: their background
 * builds — at most one builder thread per tenant file per search thread, and a failed build is
 * not retried for a while (no rebuild storm on a broken file); the registries (ann-registry.ts,
 * keyword-registry.ts) decide when — and their files beside the tenant file: generations and a
 * sidecar committed by rename.
 */
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

/** A failed background build is not retried for this long. */
const RETRY_AFTER_MS = 60_000;

export class SideBuilds<Job> {
  private readonly running = new Map<string, Worker>();
  private readonly failedAt = new Map<string, number>();

  /** `url`: the builder thread's module; it answers its job with one `{ ok }` message. */
  constructor(private readonly url: URL) {}

  /** True while a build of `file` runs. */
  has(file: string): boolean {
    return this.running.has(file);
  }

  /** Starts a build of `file` unless one runs or one failed lately; `done` hears how it ended. */
  start(file: string, job: Job, done: (ok: boolean) => void = () => {}): void {
    if (this.running.has(file)) return;
    const failed = this.failedAt.get(file);
    if (failed !== undefined && Date.now() - failed < RETRY_AFTER_MS) return;
    const w = new Worker(this.url);
    this.running.set(file, w);
    const end = (ok: boolean) => {
      if (this.running.get(file) !== w) return; // stopped meanwhile
      this.running.delete(file);
      if (ok) this.failedAt.delete(file);
      else this.failedAt.set(file, Date.now());
      w.terminate();
      done(ok);
    };
    w.onmessage = (e: MessageEvent<{ ok: boolean }>) => end(e.data.ok);
    w.onerror = () => end(false);
    w.postMessage(job);
  }

  /** Stops the build of `file` and forgets its failures (the file was dropped or replaced). */
  stop(file: string): void {
    this.running.get(file)?.terminate();
    this.running.delete(file);
    this.failedAt.delete(file);
  }

  /** Stops every build (the thread is closing). */
  stopAll(): void {
    for (const w of this.running.values()) w.terminate();
    this.running.clear();
  }
}

/** Every file beside `file` named `<file>.<tag>…` (a side index's generations, sidecar, temporaries). */
export function sideFiles(file: string, tag: string): string[] {
  const dir = dirname(file);
  if (!existsSync(dir)) return [];
  const prefix = `${basename(file)}.${tag}`;
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .map((f) => join(dir, f));
}

export function removeSideFiles(file: string, tag: string): void {
  for (const f of sideFiles(file, tag)) rmSync(f, { force: true });
}

/** A name for a side index's next generation file (time-ordered, unique enough per file). */
export function newGeneration(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Commits a side index's new generation, written to `file`: stamps it as hashing to
 * `side.digest` (its writer has just hashed it, so no opener hashes it again), then writes the
 * sidecar (`sidecar`, JSON) by a rename: the one commit point, so a reader sees the old complete
 * generation or the new one, never a half-written sidecar.
 */
export function commitGeneration(sidecar: string, file: string, side: { gen: string; digest: string }): void {
  stampGeneration(file, side.digest);
  const tmp = `${sidecar}.tmp-${side.gen}`;
  writeFileSync(tmp, JSON.stringify(side));
  renameSync(tmp, sidecar);
}

/**
 * Generation files already checked against their sidecar's digest. A generation never changes
 * once committed, so the check is done once: its result is kept per thread and in a stamp
 * beside the file (`<generation>.ok`: digest, size, modification time, inode), which every
 * other thread and process trusts while the file's size, time and inode still match. Without
 * it each search thread hashed the HNSW graph (1.7 GB, ~0.5 s) and the keyword file (350 MB,
 * ~0.1 s) before its first search of a 1M-chunk tenant. Any write through the file system
 * moves the time, so a damaged or replaced file is hashed (and refused) again; a stamp that
 * cannot be written just means hashing next time. Bit rot that keeps all four is not seen by a
 * later opener (docs/decisions.md). The writer of a generation stamps it (`commitGeneration`),
 * having just hashed it, so no search thread hashes a generation a builder wrote.
 */
const verified = new Map<string, string>();

/** The stamp file of a generation file. */
export const stampPath = (path: string): string => `${path}.ok`;

/**
 * Whether generation file `path` is `bytes` long and hashes to `digest`; `hash` (the file's
 * digest as its sidecar records it) runs only when no thread or process has checked this file.
 */
export function intactGeneration(path: string, bytes: number, digest: string, hash: () => string): boolean {
  const st = statSync(path);
  if (st.size !== bytes) return false;
  const stamp = stampOf(digest, st);
  if (verified.get(path) === stamp) return true;
  if (readIfPresent(stampPath(path)) !== stamp) {
    if (hash() !== digest) return false;
    writeStamp(path, stamp);
  }
  if (verified.size >= 64) verified.clear();
  verified.set(path, stamp);
  return true;
}

/**
 * Stamps generation file `path` as hashing to `digest`, by the writer that has just hashed it,
 * before its sidecar names it: no opener (search thread or process) hashes it again.
 */
export function stampGeneration(path: string, digest: string): void {
  writeStamp(path, stampOf(digest, statSync(path)));
}

function writeStamp(path: string, stamp: string): void {
  try {
    writeFileSync(stampPath(path), stamp);
  } catch {
    // read-only data dir: the next opener hashes
  }
}

function stampOf(digest: string, st: Stats): string {
  return `${digest}:${st.size}:${st.mtimeMs}:${st.ino}`;
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
