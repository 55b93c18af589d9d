/**
 * Bounds the uploads one instance works on at once (each holds up to 50 MB and a share of
 * the extraction/embedding workers): `concurrency` run, at most `maxQueued` wait in FIFO
 * order for at most `maxWaitMs`; anything beyond is refused at once, so the caller answers
 * 503 with Retry-After instead of piling up requests and memory.
 *
 * Fairness (issue 13): an upload acquired with a key (its tenant) is also held to a per-key
 * bound: at most `perKey.running` of one tenant's uploads run (by default one fewer than
 * `concurrency`, so a slot is always left for other tenants) and at most `perKey.queued`
 * wait. A freed slot goes to the first waiter whose tenant is under its running bound, so a
 * tenant uploading bombs in a loop queues behind itself, not in front of everyone else.
 * A waiter whose signal aborts (the client went away) leaves the queue at once.
 *
 * Penalty: after a tenant's upload is refused as hostile (413: a bomb, an oversized body;
 * 408: a trickling one), `penalise` refuses that tenant's next uploads for a moment, before
 * a byte of their body is read, so a loop of bombs costs the service one refusal per
 * penalty, not one per request.
 */
import { AppError } from "../errors.ts";

export interface UploadGateOptions {
  concurrency: number;
  maxQueued: number;
  maxWaitMs: number;
  /** Seconds suggested to a refused client. */
  retryAfterSeconds?: number;
  /** Per-key bounds (defaults: running max(1, concurrency - 1), queued 2). */
  perKey?: { running?: number; queued?: number };
}

interface Waiter {
  key: string | undefined;
  grant: () => void;
  timer: ReturnType<typeof setTimeout>;
}

export class UploadGate {
  private running = 0;
  private readonly runningByKey = new Map<string, number>();
  /** Key -> time (ms since epoch) until which its uploads are refused. */
  private readonly penalties = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private readonly retryAfter: string;
  private readonly keyRunning: number;
  private readonly keyQueued: number;

  constructor(private readonly opts: UploadGateOptions) {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new Error("UploadGate: concurrency >= 1");
    if (!Number.isInteger(opts.maxQueued) || opts.maxQueued < 0) throw new Error("UploadGate: maxQueued >= 0");
    this.retryAfter = String(opts.retryAfterSeconds ?? 5);
    this.keyRunning = opts.perKey?.running ?? Math.max(1, opts.concurrency - 1);
    this.keyQueued = opts.perKey?.queued ?? 2;
  }

  get stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  /** One key's uploads running and waiting. */
  statsOf(key: string): { running: number; queued: number } {
    return { running: this.runningByKey.get(key) ?? 0, queued: this.waiting.filter((w) => w.key === key).length };
  }

  /**
   * Resolves with a release function once a slot is free; throws 503 when the queue (or the
   * key's share of it) is full or the wait ran out, and rejects at once when `signal` aborts.
   */
  acquire(key?: string, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(this.cancelled());
    const until = key === undefined ? undefined : this.penalties.get(key);
    if (until !== undefined) {
      const left = until - Date.now();
      if (left > 0) {
        const seconds = Math.ceil(left / 1000);
        return Promise.reject(
          new AppError(
            "unavailable",
            `This tenant's last upload was refused (too large or too slow); retry in ${seconds} s`,
            undefined,
            { "Retry-After": String(seconds) },
          ),
        );
      }
      this.penalties.delete(key as string);
    }
    if (this.running < this.opts.concurrency && this.eligible(key)) return Promise.resolve(this.take(key));
    if (this.waiting.length >= this.opts.maxQueued) return Promise.reject(this.busy("the upload queue is full"));
    if (key !== undefined && this.statsOf(key).queued >= this.keyQueued) {
      return Promise.reject(this.busy(`this tenant already has ${this.keyQueued} uploads waiting`));
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(waiter.timer);
        signal?.removeEventListener("abort", onAbort);
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
      };
      const onAbort = () => {
        leave();
        reject(this.cancelled());
      };
      const waiter: Waiter = {
        key,
        grant: () => {
          leave();
          resolve(this.take(key));
        },
        timer: setTimeout(() => {
          leave();
          reject(this.busy(`no upload slot became free within ${this.opts.maxWaitMs} ms`));
        }, this.opts.maxWaitMs),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Refuses `key`'s uploads for the next `ms` (after a hostile refusal). */
  penalise(key: string, ms: number): void {
    this.penalties.set(key, Math.max(this.penalties.get(key) ?? 0, Date.now() + ms));
  }

  private eligible(key: string | undefined): boolean {
    return key === undefined || (this.runningByKey.get(key) ?? 0) < this.keyRunning;
  }

  private take(key: string | undefined): () => void {
    this.running += 1;
    if (key !== undefined) this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      if (key !== undefined) {
        const n = (this.runningByKey.get(key) ?? 1) - 1;
        if (n > 0) this.runningByKey.set(key, n);
        else this.runningByKey.delete(key);
      }
      // The first waiter whose tenant is under its bound takes the slot (FIFO otherwise).
      const next = this.waiting.find((w) => this.eligible(w.key));
      if (next && this.running < this.opts.concurrency) next.grant();
    };
  }

  private cancelled(): AppError {
    return new AppError("unavailable", "The upload was cancelled: the client went away");
  }

  private busy(why: string): AppError {
    return new AppError("unavailable", `Too many uploads in progress (${why}); retry later`, undefined, {
      "Retry-After": this.retryAfter,
    });
  }
}
