/**
 * Whether a side index's generation file (the HNSW graph, the keyword file) is the one its
 * sidecar names: its size and digest. A generation never changes once committed, so the check
 * is done once and remembered: per thread, and in a stamp beside the file (`<generation>.ok`:
 * digest, size, modification time, inode, and when the bytes were last hashed), which every
 * other thread and process trusts while the file's size, time and inode still match. Without it
 * each search thread hashed the HNSW graph (1.7 GB, ~0.5 s) and the keyword file (350 MB,
 * ~0.1 s) before its first search of a 1M-chunk tenant. Any write through the file system moves
 * the time, so a damaged or replaced file is hashed (and refused) again; a stamp that cannot be
 * written just means hashing next time. The writer of a generation stamps it, having just
 * hashed it (`stampGeneration`).
 *
 * Bit rot keeps size, time and inode, so a stamp alone would vouch for rotten bytes. A thread
 * that opens a generation on a stamp hashed before the thread started therefore hashes it again
 * in the background (a scrub, on a worker, one at a time per thread), off the search path: the
 * search goes on with the stamp's word meanwhile. A match re-dates the stamp, so the thread's
 * siblings and the rest of this run trust it without a scrub; a mismatch removes the stamp,
 * refuses the file in this thread, and retires the sidecar if it still names that generation —
 * every holder in every thread and process then drops it on its next search (their one `stat`
 * of the sidecar) and the tenant is rebuilt from SQLite, as for a file found damaged on open.
 */
import { closeSync, openSync, readFileSync, readSync, rmSync, type Stats, statSync, writeFileSync } from "node:fs";

/**
 * How a generation's digest is computed: `blocks` (the HNSW file) is wyhash over 16 MiB blocks,
 * each seeded with the hash so far (read, not mapped); `whole` (the keyword file) is wyhash of
 * the whole mapped file.
 */
export type DigestMethod = "blocks" | "whole";

/** A committed generation as its sidecar describes it. */
export interface Generation {
  /** The generation file. */
  path: string;
  /** Its name in the sidecar. */
  gen: string;
  /** The sidecar (JSON with a `gen` field) that commits it. */
  sidecar: string;
  bytes: number;
  digest: string;
  method: DigestMethod;
}

/** The `whole` digest of bytes in memory (the writer's buffer, or the mapped file). */
export const wholeDigest = (bytes: Uint8Array): string => Bun.hash(bytes).toString(16);

export function digestOf(path: string, method: DigestMethod): string {
  if (method === "whole") return wholeDigest(Bun.mmap(path, { shared: false }));
  const block = new Uint8Array(16 << 20);
  const fd = openSync(path, "r");
  try {
    let h: bigint | number = 0;
    for (;;) {
      const n = readSync(fd, block, 0, block.length, null);
      if (n <= 0) break;
      h = Bun.hash(block.subarray(0, n), h);
    }
    return h.toString(16);
  } finally {
    closeSync(fd);
  }
}

/** The stamp file of a generation file. */
export const stampPath = (path: string): string => `${path}.ok`;

/** What a stamp vouches for: digest and the file's size, time and inode (the stamp adds when it was hashed). */
const identityOf = (digest: string, st: Stats): string => `${digest}:${st.size}:${st.mtimeMs}:${st.ino}`;

/** Files this thread has checked (identity), and files it found damaged (identity then). */
const verified = new Map<string, string>();
const refused = new Map<string, string>();
/** When this thread started: a stamp hashed before it is scrubbed once. */
const threadStart = Date.now() - process.uptime() * 1000;

/**
 * Whether `g`'s file is `g.bytes` long and hashes to `g.digest`. `hash` runs only when no thread
 * or process has checked this file (and not again once this thread refused it unchanged); it
 * defaults to `digestOf(g.path, g.method)` (a caller that has the file mapped may hash that).
 */
export function intactGeneration(g: Generation, hash = () => digestOf(g.path, g.method)): boolean {
  const st = statSync(g.path);
  if (st.size !== g.bytes) return false;
  const id = identityOf(g.digest, st);
  if (verified.get(g.path) === id) return true;
  if (refused.get(g.path) === id) return false;
  const stamp = readIfPresent(stampPath(g.path));
  if (stamp === id || stamp?.startsWith(`${id}:`)) {
    // A stamp without the time (written before scrubs existed) counts as hashed long ago.
    const hashedAt = stamp === id ? 0 : Number(stamp.slice(id.length + 1));
    if (!(hashedAt >= threadStart)) scrub(g, id);
  } else {
    if (hash() !== g.digest) {
      remember(refused, g.path, id);
      return false;
    }
    writeStamp(g.path, id);
  }
  remember(verified, g.path, id);
  return true;
}

/**
 * Stamps generation file `path` as hashing to `digest`, by the writer that has just hashed it,
 * before its sidecar names it: no opener (search thread or process) hashes it again.
 */
export function stampGeneration(path: string, digest: string): void {
  writeStamp(path, identityOf(digest, statSync(path)));
}

/** Whether this thread has found `path` damaged (its holders drop it). */
export function generationRefused(path: string): boolean {
  return refused.has(path);
}

// One scrub at a time per thread; a file is queued once.
let scrubs: Promise<void> = Promise.resolve();
const queued = new Set<string>();

/** Resolves once every scrub queued so far has ended (tests and benches). */
export function scrubsSettled(): Promise<void> {
  return scrubs;
}

function scrub(g: Generation, id: string): void {
  if (queued.has(g.path)) return;
  queued.add(g.path);
  scrubs = scrubs.then(async () => {
    const found = await hashOnWorker(g.path, g.method);
    queued.delete(g.path);
    let now: string;
    try {
      now = identityOf(g.digest, statSync(g.path));
    } catch {
      return; // gone meanwhile (a newer generation replaced it)
    }
    if (now !== id || found === null) return; // changed meanwhile: the next open checks it afresh
    if (found === g.digest) writeStamp(g.path, id);
    else retire(g, id);
  });
}

/** Refuses `g` in this thread, removes its stamp and, if its sidecar still names it, the sidecar. */
function retire(g: Generation, id: string): void {
  verified.delete(g.path);
  remember(refused, g.path, id);
  rmSync(stampPath(g.path), { force: true });
  try {
    const side = JSON.parse(readFileSync(g.sidecar, "utf8")) as { gen?: unknown };
    if (side.gen === g.gen) rmSync(g.sidecar, { force: true });
  } catch {
    // no sidecar, or a torn one: nothing names this generation
  }
}

/** The file's digest computed on a worker thread; null when it could not be read. */
function hashOnWorker(path: string, method: DigestMethod): Promise<string | null> {
  return new Promise((resolve) => {
    const w = new Worker(new URL("./generation-scrub-worker.ts", import.meta.url));
    (w as Worker & { unref(): void }).unref();
    const end = (digest: string | null) => {
      w.terminate();
      resolve(digest);
    };
    w.onmessage = (e: MessageEvent<{ digest: string | null }>) => end(e.data.digest);
    w.onerror = () => end(null);
    w.postMessage({ path, method });
  });
}

function remember(map: Map<string, string>, path: string, id: string): void {
  if (map.size >= 64) map.clear();
  map.set(path, id);
}

function writeStamp(path: string, id: string): void {
  try {
    writeFileSync(stampPath(path), `${id}:${Date.now()}`);
  } catch {
    // read-only data dir: the next opener hashes
  }
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
