/**
 * Search threads for the embedded index (search-worker.ts) on the shared bounded worker pool:
 * each search goes to an idle thread; the number in flight is bounded, and past the bound a
 * search is refused with 503 rather than queued without end. Threads start on the first search.
 *
 * Split searches. FTS5 computes bm25() for every chunk holding a query term, so on a large
 * index the keyword leg is most of a search (~30 ms at 100k chunks) and one thread does it
 * all while the others may be idle. When a file's keyword leg last took at least
 * `splitKeywordMs` and at least two threads are idle with nothing queued, the search runs as
 * two parts at once: each thread takes the keyword leg over one half of the chunk rowids (the
 * first also the vector leg), this thread merges the halves exactly as one pass would
 * (keyword-leg.ts `combineKeywordParts`) and fuses, and a third job hydrates the ranking.
 * Under load (threads busy) searches run whole, so a split never costs throughput there.
 *
 * The parts read two snapshots. The halves are fixed by one boundary sent to both, so each
 * chunk is in exactly one half whatever was written meanwhile; hydration evaluates the caller's
 * ACL again in its own snapshot, and if a ranked chunk is gone or no longer visible to the
 * caller there, the search is run again whole — a split search never returns what a whole one
 * could not.
 */

import { candidatesPerLeg, type Fused } from "../../domain/documents/fusion.ts";
import type { SearchHit } from "../../domain/documents/types.ts";
import { AppError, ERROR_TABLE, type ErrorCode } from "../../domain/errors.ts";
import { WorkerPool } from "../workers/pool.ts";
import type { AnnOptions } from "./ann-registry.ts";
import type { SeqRange } from "./fts5-reads.ts";
import { combineKeywordParts } from "./keyword-leg.ts";
import type { CompiledSearch } from "./search-request.ts";
import type { FromSearchWorker, SearchAnswer, SearchTask, ToSearchWorker } from "./search-worker.ts";
import { type LegsOutcome, rankLegs, type SearchOutcome } from "./sqlite-search.ts";

interface SearchJob {
  file: string;
  req: CompiledSearch;
  task: SearchTask;
}

/** How long a closing thread may take to save its HNSW indexes (~1 s per 1M chunks). */
const SAVE_GRACE_MS = 30_000;
/** Files whose keyword time and rowid bounds are remembered (oldest forgotten first). */
const MAX_KNOWN_FILES = 1024;
/** Default keyword time from which a search is split when threads are idle. */
export const SPLIT_KEYWORD_MS = 8;

export interface SearchPoolOptions {
  size: number;
  /** Searches running or waiting for a thread before new ones are refused. */
  maxInFlight: number;
  dim: number;
  ann: AnnOptions;
  /** Split a file's searches once its keyword leg took this long (Infinity: never). */
  splitKeywordMs?: number;
}

/** What the pool knows of a file from its last search. */
interface Known {
  keywordMs: number;
  seqs: SeqRange;
}

export interface SearchPoolStats {
  whole: number;
  split: number;
  /** Split searches run again whole (a ranked chunk changed between the snapshots). */
  rerun: number;
}

export class SearchPool {
  private readonly pool: WorkerPool<SearchJob, SearchAnswer, ToSearchWorker, FromSearchWorker>;
  private readonly known = new Map<string, Known>();
  private readonly splitKeywordMs: number;
  private readonly counts: SearchPoolStats = { whole: 0, split: 0, rerun: 0 };

  constructor(private readonly opts: SearchPoolOptions) {
    const { dim, ann } = opts;
    this.splitKeywordMs = opts.splitKeywordMs ?? SPLIT_KEYWORD_MS;
    this.pool = new WorkerPool({
      name: "document search",
      url: new URL("./search-worker.ts", import.meta.url),
      size: opts.size,
      maxQueued: Math.max(0, opts.maxInFlight - opts.size),
      encode: (id, { file, req, task }) => ({ type: "search", id, file, req, task, dim, ann }),
      decode: (msg) =>
        msg.type === "closed"
          ? null
          : msg.type === "result"
            ? { id: msg.id, ok: true, value: msg.answer }
            : { id: msg.id, ok: false, error: new AppError(asCode(msg.code), msg.message) },
      shutdown: {
        message: { type: "close" } as ToSearchWorker,
        isDone: (msg) => msg.type === "closed",
        graceMs: SAVE_GRACE_MS,
      },
    });
  }

  async search(file: string, req: CompiledSearch): Promise<SearchHit[]> {
    const boundary = this.splitAt(file, req);
    if (boundary !== null) {
      const hits = await this.splitSearch(file, req, boundary);
      if (hits) return hits;
      this.counts.rerun++;
    }
    const out = (await this.pool.run({ file, req, task: { kind: "whole" } })) as SearchOutcome;
    this.counts.whole++;
    this.learn(file, out.keywordMs, out.seqs);
    return out.hits;
  }

  stats(): SearchPoolStats {
    return { ...this.counts };
  }

  /** Every thread closes its handle to `file` before its next search (ordered messages). */
  forget(file: string): void {
    this.known.delete(file);
    this.pool.broadcast({ type: "forget", file });
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** The rowid that ends the first half, when this search should be split now; else null. */
  private splitAt(file: string, req: CompiledSearch): number | null {
    if (req.mode === "dense" || this.opts.size < 2) return null;
    const k = this.known.get(file);
    if (!k || k.keywordMs < this.splitKeywordMs || k.seqs.hi <= k.seqs.lo) return null;
    const { running, queued } = this.pool.load;
    if (queued > 0 || this.opts.size - running < 2) return null;
    return Math.floor((k.seqs.lo + k.seqs.hi) / 2);
  }

  /** Two parts, merged and fused here, hydrated by a third job; null when it must run whole. */
  private async splitSearch(file: string, req: CompiledSearch, boundary: number): Promise<SearchHit[] | null> {
    const { embedding: _, ...keywordOnly } = req;
    const [first, second] = (await Promise.all([
      this.pool.run({
        file,
        req,
        task: { kind: "legs", seqs: { lo: Number.MIN_SAFE_INTEGER, hi: boundary }, dense: true },
      }),
      this.pool.run({
        file,
        req: keywordOnly,
        task: { kind: "legs", seqs: { lo: boundary + 1, hi: Number.MAX_SAFE_INTEGER }, dense: false },
      }),
    ])) as [LegsOutcome, LegsOutcome];
    this.counts.split++;
    // The whole leg's time is about the two halves' together.
    this.learn(file, first.keywordMs + second.keywordMs, first.seqs);
    const parts = [first.keyword, second.keyword].filter((p) => p !== null);
    const bm25 = parts.length > 0 ? combineKeywordParts(parts, candidatesPerLeg(req.k)) : [];
    const ranked: Fused[] = rankLegs(req, bm25, first.dense);
    if (ranked.length === 0) return [];
    const hits = (await this.pool.run({ file, req: keywordOnly, task: { kind: "hydrate", ranked } })) as SearchHit[];
    return hits.length === ranked.length ? hits : null;
  }

  private learn(file: string, keywordMs: number, seqs: SeqRange | null): void {
    this.known.delete(file); // re-inserted last: the map's order is the forgetting order
    if (!seqs) return;
    this.known.set(file, { keywordMs, seqs });
    if (this.known.size > MAX_KNOWN_FILES) this.known.delete(this.known.keys().next().value as string);
  }
}

function asCode(code: string | null): ErrorCode {
  return code !== null && Object.hasOwn(ERROR_TABLE, code) ? (code as ErrorCode) : "internal";
}
