/**
 * Schedules tiering runs on the durable job queue. Every instance ticks, and every tick
 * enqueues the job of the current interval under one job id (`rtdb-tiering-<n>`, n = the
 * interval's index since the epoch): the queue deduplicates, so each interval runs once
 * across all instances, on whichever worker claims it. A run killed mid-way is retried by
 * the queue (lease, attempts); the next interval's run finishes anything left anyway.
 */
import { AppError } from "../../../domain/errors.ts";
import type { JobHandler, JobQueue } from "../../../domain/ports.ts";
import { RTDB_TIERING_QUEUE, runTiering, type TieringDeps, type TieringLogger } from "./pipeline.ts";

/** The queue handler: one pass over every tenant (job data is ignored). */
export function makeTieringHandler(deps: TieringDeps): JobHandler {
  return async (job) => {
    const out = await runTiering({ ...deps, owner: `${job.id}:${job.attempt}:${crypto.randomUUID().slice(0, 8)}` });
    deps.logger.info({ job_id: job.id, ...out, failures: out.failures.length }, "tiering run finished");
    await job.progress({ parts_tiered: out.parts_tiered, failures: out.failures.length });
    return out;
  };
}

export class TieringScheduler {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private started = false;
  private readonly now: () => number;

  constructor(
    private readonly queue: JobQueue,
    private readonly opts: { intervalMs: number; logger: TieringLogger; now?: () => number },
  ) {
    if (!Number.isInteger(opts.intervalMs) || opts.intervalMs < 1000) {
      throw new Error("TieringScheduler: intervalMs must be an integer of at least 1000");
    }
    this.now = opts.now ?? Date.now;
  }

  /** Enqueues the current interval's run now, then one at the start of every interval. */
  start(): void {
    if (this.closed || this.started) return;
    this.started = true;
    void this.tick();
  }

  /** The job id of the interval containing `at`. */
  jobIdAt(at: number): string {
    return `rtdb-tiering-${Math.floor(at / this.opts.intervalMs)}`;
  }

  async tick(): Promise<void> {
    if (this.closed) return;
    const at = this.now();
    try {
      await this.queue.enqueue(
        RTDB_TIERING_QUEUE,
        "tier",
        {},
        { jobId: this.jobIdAt(at), attempts: 3, backoffMs: 60_000 },
      );
    } catch (err) {
      // The next tick tries again; a closed queue during shutdown is expected.
      if (!(err instanceof AppError && this.closed)) {
        this.opts.logger.warn({ error: (err as Error).message }, "could not enqueue a tiering run");
      }
    }
    if (this.closed) return;
    const next = (Math.floor(at / this.opts.intervalMs) + 1) * this.opts.intervalMs;
    this.timer = setTimeout(() => void this.tick(), Math.max(1000, next - this.now()));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
