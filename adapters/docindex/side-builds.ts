/**
 * The background builds of one search thread's side indexes (the HNSW graph, the keyword
 * index): at most one builder thread per tenant file, and a failed build is not retried for a
 * while (no rebuild storm on a broken file). The registries (ann-registry.ts,
 * keyword-registry.ts) decide when to build; this only runs the builder threads.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
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
