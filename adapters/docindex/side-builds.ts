/**
 * What a tenant file's side indexes (the HNSW graph, the keyword index) share: their background
 * builds — at most one builder thread per tenant file per search thread, and a failed build is
 * not retried for a while (no rebuild storm on a broken file); the registries (ann-registry.ts,
 * keyword-registry.ts) decide when — and their files beside the tenant file: generations and a
 * sidecar committed by rename (generation-check.ts checks a generation before it is used).
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { stampGeneration } from "./generation-check.ts";

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

/** A sidecar's identity (a commit renames a new file in, so its inode changes), or null when absent. */
export function sidecarIdentity(sidecar: string): string | null {
  try {
    const st = statSync(sidecar);
    return `${st.ino}:${st.mtimeMs}`;
  } catch {
    return null;
  }
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
