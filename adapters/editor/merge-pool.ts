/**
 * StateMerger on worker threads (the shared bounded worker pool). Small states (the common
 * case: a few pages) merge inline, where a thread hop would cost more than the work; larger
 * ones go to an idle thread. The number in flight is bounded: past it a store is refused with
 * 503 (the collaboration server keeps the document in memory and retries).
 */
import type { StateMerger } from "../../domain/editor/ports.ts";
import type { DocAst } from "../../domain/editor/types.ts";
import { mergeStates } from "../../domain/editor/ydoc.ts";
import { WorkerPool } from "../workers/pool.ts";
import type { FromMergeWorker, ToMergeWorker } from "./merge-worker.ts";

type Merged = { state: Uint8Array; docAst: DocAst };

export interface MergePoolOptions {
  /** Worker threads (default 1: stores of one document are serialised by its room anyway). */
  threads?: number;
  /** Merges waiting or running on threads before new ones are refused (default 64). */
  maxQueued?: number;
  /** Combined input size merged on the calling thread (default 64 KiB; ~1 ms of work). */
  inlineMaxBytes?: number;
}

export class CrdtMergePool implements StateMerger {
  private readonly pool: WorkerPool<Omit<ToMergeWorker, "id">, Merged, ToMergeWorker, FromMergeWorker>;
  private readonly inlineMaxBytes: number;

  constructor(opts: MergePoolOptions = {}) {
    const size = opts.threads ?? 1;
    const maxQueued = opts.maxQueued ?? 64;
    this.inlineMaxBytes = opts.inlineMaxBytes ?? 64 * 1024;
    if (!Number.isInteger(maxQueued) || maxQueued < 1) throw new Error("CrdtMergePool maxQueued must be >= 1");
    this.pool = new WorkerPool({
      name: "document store",
      url: new URL("./merge-worker.ts", import.meta.url),
      size,
      maxQueued: Math.max(0, maxQueued - size),
      encode: (id, job) => ({ id, ...job }),
      decode: (msg) =>
        msg.ok
          ? { id: msg.id, ok: true, value: { state: msg.state, docAst: msg.docAst } }
          : { id: msg.id, ok: false, error: new Error(msg.message) },
    });
  }

  async merge(stored: Uint8Array | null, incoming: Uint8Array): Promise<Merged> {
    if ((stored?.byteLength ?? 0) + incoming.byteLength <= this.inlineMaxBytes) return mergeStates(stored, incoming);
    return this.pool.run({ stored, incoming });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
