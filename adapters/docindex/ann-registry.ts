/**
 * The ANN indexes one search thread holds (one per tenant file, bounded LRU), and the
 * decision per search of whether the vector leg uses one:
 *
 * - below `minChunks` the leg stays exact (sqlite-vec brute force is already fast there);
 * - a held index is caught up with the log first (read-your-writes), reopened on a gap or
 *   when a newer generation has been saved (by any thread or process);
 * - an index not held views its saved file (mapped, shared by every thread), or is built:
 *   inline when the tenant is small (`syncBuildMax`), else on a builder thread
 *   (ann-build-worker.ts) while this tenant's searches answer exactly and other tenants'
 *   searches are not held up;
 * - a viewed index that has taken `compactEvery` changes in its delta has a builder thread
 *   write the next generation; once it is saved the thread views that one instead.
 *
 * Every search thread maps the same generation file, so a 1M-chunk tenant costs one copy of
 * its graph in the page cache (~1.5 GB at 768-d f16), not one per thread.
 */
import type { Database } from "bun:sqlite";
import type { AnnBuildJob } from "./ann-build-worker.ts";
import { AnnIndex, chunkCount, compactEvery } from "./ann-index.ts";
import { SideBuilds } from "./side-builds.ts";

export interface AnnOptions {
  /** Tenants with fewer chunks are searched exactly (CAIRN_ANN_MIN_CHUNKS). */
  minChunks: number;
  /** Tenants up to this many chunks are built inline on first search, larger ones in the background. */
  syncBuildMax: number;
  /** Changes a viewed index takes in its delta before its next generation is written (default `compactEvery(size)`). */
  compactAt?: number;
}

export const DEFAULT_ANN: AnnOptions = { minChunks: 20_000, syncBuildMax: 5_000 };

export class AnnRegistry {
  // Insertion order = LRU order (re-inserted on use), as in HandleCache.
  private readonly held = new Map<string, AnnIndex>();
  private readonly builds = new SideBuilds<AnnBuildJob>(new URL("./ann-build-worker.ts", import.meta.url));

  constructor(
    private readonly capacity = 8,
    // Builds are rare and long (188 s for 100k on both cores of the loaded 2-core machine, so
    // ~4× that on one): they get every core, and the OS shares them with the searches.
    private readonly buildThreads = navigator.hardwareConcurrency,
  ) {}

  /**
   * The tenant's ANN, current as of the caller's read transaction, or null: search exactly.
   * Call inside the search's read transaction, so the index and the checks see one snapshot.
   */
  get(db: Database, file: string, dim: number, opts: AnnOptions, count = chunkCount(db)): AnnIndex | null {
    if (count < opts.minChunks) return null;
    let ann = this.held.get(file);
    if (ann) {
      this.held.delete(file);
      // A newer generation was saved (by this thread's builder or any other), or the log was
      // trimmed past this copy: reopen.
      if (ann.superseded() || !ann.catchUp(db)) ann = undefined;
    }
    if (!ann) {
      ann = AnnIndex.load(db, file, dim) ?? undefined;
      if (!ann) {
        if (this.builds.has(file)) return null;
        if (count > opts.syncBuildMax) {
          this.startBuild(file, dim);
          return null;
        }
        // Small enough to build here; saved at once, so later threads and processes view it.
        ann = AnnIndex.build(db, file, dim, 1);
        ann.save();
      }
    }
    if (ann.pending >= (opts.compactAt ?? compactEvery(ann.size))) {
      // A built copy is small (syncBuildMax): saved here. A view's delta goes to a builder.
      if (ann.viewed) this.startBuild(file, dim);
      else ann.save();
    }
    this.held.set(file, ann);
    this.evict();
    return ann;
  }

  /** Drops what this thread holds of `file` (dropped or replaced) and stops its build. */
  forget(file: string): void {
    this.held.delete(file);
    this.builds.stop(file);
  }

  /** Saves every built index with unsaved changes (a clean shutdown), then drops them; a view's delta stays in the log. */
  flush(): void {
    for (const ann of this.held.values()) if (!ann.viewed && ann.pending > 0) ann.save();
    this.held.clear();
    this.builds.stopAll();
  }

  /** True while a background build of `file` runs (tests and benches wait on it). */
  isBuilding(file: string): boolean {
    return this.builds.has(file);
  }

  private evict(): void {
    while (this.held.size > this.capacity) {
      const oldest = this.held.keys().next().value;
      if (oldest === undefined) break;
      // Unsaved changes of an evicted index stay in the log (trimmed only below a saved file).
      this.held.delete(oldest);
    }
  }

  /** A first build or the next generation; once saved, the next search views it (the delta is dropped). */
  private startBuild(file: string, dim: number): void {
    this.builds.start(file, { file, dim, threads: this.buildThreads }, (ok) => {
      if (ok) this.held.delete(file);
    });
  }
}
