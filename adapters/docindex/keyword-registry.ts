/**
 * The keyword indexes one search thread holds (one per tenant file, bounded LRU) and whether a
 * search's keyword leg uses one (keyword-index.ts):
 *
 * - below the ANN's `minChunks` FTS5 answers (it is fast there, and the HNSW threshold is the
 *   one "large tenant" setting);
 * - a held index answers while it is usable for the snapshot and still the saved generation;
 *   past `rebuildAt` logged changes a new one is built beside it, and the next search after the
 *   build (in any thread) maps that;
 * - an index not held is mapped from its saved file, or built: inline for a small tenant
 *   (`syncBuildMax`), else on a builder thread while FTS5 answers.
 *
 * The file is mapped, not read: threads and processes share one copy through the page cache.
 */
import type { Database } from "bun:sqlite";
import { chunkCount } from "./ann-index.ts";
import type { AnnOptions } from "./ann-registry.ts";
import type { KeywordBuildJob } from "./keyword-build-worker.ts";
import { KeywordIndex } from "./keyword-index.ts";
import { SideBuilds } from "./side-builds.ts";

/** Logged changes past which a held index is rebuilt (each costs a log read per search). */
export function rebuildAt(rows: number): number {
  return Math.max(4096, Math.floor(rows / 8));
}

export class KeywordRegistry {
  private readonly held = new Map<string, KeywordIndex>();
  private readonly builds = new SideBuilds<KeywordBuildJob>(new URL("./keyword-build-worker.ts", import.meta.url));

  constructor(private readonly capacity = 8) {}

  /** The tenant's keyword index usable in the caller's read transaction, or null: FTS5 answers. */
  get(db: Database, file: string, opts: AnnOptions, count = chunkCount(db)): KeywordIndex | null {
    if (count < opts.minChunks) return null;
    let kw = this.held.get(file) ?? null;
    this.held.delete(file);
    if (kw?.superseded()) {
      // A newer generation (this thread's builder, another thread's or process's) is mapped
      // even while a build runs here; a damaged one is not (it no longer loads).
      kw = KeywordIndex.load(db, file);
    } else if (!kw && !this.builds.has(file)) {
      // Not mapped while a build runs: the saved file is then the stale or unusable one.
      kw = KeywordIndex.load(db, file);
    }
    if (kw && !kw.usable(db)) kw = null;
    if (kw && kw.pendingOf(db) > rebuildAt(kw.rows)) this.startBuild(file);
    if (!kw && !this.builds.has(file)) {
      if (count > opts.syncBuildMax) this.startBuild(file);
      else {
        kw = KeywordIndex.build(db, file);
        if (kw && !kw.usable(db)) kw = null;
      }
    }
    if (!kw) return null;
    this.held.set(file, kw);
    while (this.held.size > this.capacity) {
      const oldest = this.held.keys().next().value;
      if (oldest === undefined) break;
      this.held.delete(oldest);
    }
    return kw;
  }

  /** Drops what this thread holds of `file` and stops its build. */
  forget(file: string): void {
    this.held.delete(file);
    this.builds.stop(file);
  }

  /** Stops every build and drops every index (the thread is closing). */
  close(): void {
    this.builds.stopAll();
    this.held.clear();
  }

  /** True while a background build of `file` runs (tests and benches wait on it). */
  isBuilding(file: string): boolean {
    return this.builds.has(file);
  }

  private startBuild(file: string): void {
    // Once built, the next search maps the new generation.
    this.builds.start(file, { file }, (ok) => {
      if (ok) this.held.delete(file);
    });
  }
}
