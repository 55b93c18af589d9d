/**
 * Bounds the uploads one instance works on at once (each holds up to 50 MB and a share of
 * the extraction/embedding workers): `concurrency` run, at most `maxQueued` wait in FIFO
 * order for at most `maxWaitMs`; anything beyond is refused at once, so the caller answers
 * 503 with Retry-After instead of piling up requests and memory.
 */
import { AppError } from "../errors.ts";

export interface UploadGateOptions {
  concurrency: number;
  maxQueued: number;
  maxWaitMs: number;
  /** Seconds suggested to a refused client. */
  retryAfterSeconds?: number;
}

interface Waiter {
  grant: () => void;
  timer: ReturnType<typeof setTimeout>;
}

export class UploadGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readonly retryAfter: string;

  constructor(private readonly opts: UploadGateOptions) {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new Error("UploadGate: concurrency >= 1");
    if (!Number.isInteger(opts.maxQueued) || opts.maxQueued < 0) throw new Error("UploadGate: maxQueued >= 0");
    this.retryAfter = String(opts.retryAfterSeconds ?? 5);
  }

  get stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  /** Resolves with a release function once a slot is free; throws 503 when the queue is full or the wait ran out. */
  acquire(): Promise<() => void> {
    if (this.running < this.opts.concurrency) {
      this.running += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.opts.maxQueued) return Promise.reject(this.busy("the upload queue is full"));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.releaser());
        },
        timer: setTimeout(() => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(this.busy(`no upload slot became free within ${this.opts.maxWaitMs} ms`));
        }, this.opts.maxWaitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter: `running` stays the same.
      if (next) next.grant();
      else this.running -= 1;
    };
  }

  private busy(why: string): AppError {
    return new AppError("unavailable", `Too many uploads in progress (${why}); retry later`, undefined, {
      "Retry-After": this.retryAfter,
    });
  }
}
