/**
 * The extraction worker threads (worker.ts) on the shared bounded worker pool (STYLE habits
 * 8, 10): a job is handed to a worker only when it is idle; the queue is bounded by count and
 * by bytes and refuses beyond that (503, Retry-After); a job running past its deadline has
 * its worker terminated (the only way to stop a stuck parser or OCR) and a fresh worker is
 * started for the next job. Closing lets running jobs finish, then lets each worker stop its
 * Tesseract thread.
 */
import { WorkerPool } from "../workers/pool.ts";
import type { ExtractJob, FromWorker, ToWorker, WorkerResult } from "./protocol.ts";

export interface PoolOptions {
  /** Worker threads (documents extracted at the same time). */
  size: number;
  /** Jobs waiting beyond the running ones. */
  maxQueued: number;
  /** Bytes of waiting jobs' files. */
  maxQueuedBytes: number;
  /** Jobs of one key (tenant) waiting beyond the running ones. */
  maxQueuedPerKey?: number;
  /** Deadline per document, from the moment a worker takes it. */
  timeoutMs: number;
}

export class ExtractionTimeout extends Error {}
export class Unreadable extends Error {}
/** The file would inflate or decode past a budget (zip.ts, pixel caps): answered 413. */
export class TooLarge extends Error {}

type Job = Omit<ExtractJob, "id" | "type">;

export class ExtractionPool extends WorkerPool<Job, WorkerResult, ToWorker, FromWorker> {
  constructor(opts: PoolOptions) {
    super({
      name: "document extraction",
      url: new URL("./worker.ts", import.meta.url),
      ...opts,
      bytesOf: (job) => job.bytes.byteLength,
      timeoutError: (ms) => new ExtractionTimeout(`extraction took longer than ${Math.round(ms / 1000)} s`),
      encode: (id, job) => ({ ...job, type: "extract", id }),
      decode: (msg) => {
        if (msg.type === "closed") return null;
        if (msg.type === "done") return { id: msg.id, ok: true, value: msg.result };
        const error =
          msg.reason === "unreadable"
            ? new Unreadable(msg.message)
            : msg.reason === "too_large"
              ? new TooLarge(msg.message)
              : new Error(`extraction failed: ${msg.message}`);
        return { id: msg.id, ok: false, error };
      },
      shutdown: { message: { type: "close" }, isDone: (msg) => msg.type === "closed" },
    });
  }
}
