/**
 * Search threads for the embedded index (search-worker.ts) on the shared bounded worker pool:
 * each search goes to an idle thread; the number in flight is bounded, and past the bound a
 * search is refused with 503 rather than queued without end. Threads start on the first search.
 */

import type { SearchHit } from "../../domain/documents/types.ts";
import { AppError, ERROR_TABLE, type ErrorCode } from "../../domain/errors.ts";
import { WorkerPool } from "../workers/pool.ts";
import type { AnnOptions } from "./ann-registry.ts";
import type { CompiledSearch } from "./search-request.ts";
import type { FromSearchWorker, ToSearchWorker } from "./search-worker.ts";

interface SearchJob {
  file: string;
  req: CompiledSearch;
}

/** How long a closing thread may take to save its HNSW indexes (~1 s per 1M chunks). */
const SAVE_GRACE_MS = 30_000;

export class SearchPool {
  private readonly pool: WorkerPool<SearchJob, SearchHit[], ToSearchWorker, FromSearchWorker>;

  /** `maxInFlight`: searches running or waiting for a thread before new ones are refused. */
  constructor(size: number, maxInFlight: number, dim: number, ann: AnnOptions) {
    this.pool = new WorkerPool({
      name: "document search",
      url: new URL("./search-worker.ts", import.meta.url),
      size,
      maxQueued: Math.max(0, maxInFlight - size),
      encode: (id, { file, req }) => ({ type: "search", id, file, req, dim, ann }),
      decode: (msg) =>
        msg.type === "closed"
          ? null
          : msg.type === "result"
            ? { id: msg.id, ok: true, value: msg.hits }
            : { id: msg.id, ok: false, error: new AppError(asCode(msg.code), msg.message) },
      shutdown: {
        message: { type: "close" } as ToSearchWorker,
        isDone: (msg) => msg.type === "closed",
        graceMs: SAVE_GRACE_MS,
      },
    });
  }

  search(file: string, req: CompiledSearch): Promise<SearchHit[]> {
    return this.pool.run({ file, req });
  }

  /** Every thread closes its handle to `file` before its next search (ordered messages). */
  forget(file: string): void {
    this.pool.broadcast({ type: "forget", file });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function asCode(code: string | null): ErrorCode {
  return code !== null && Object.hasOwn(ERROR_TABLE, code) ? (code as ErrorCode) : "internal";
}
