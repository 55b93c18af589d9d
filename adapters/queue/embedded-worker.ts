/**
 * The pull loop of the embedded queue (see embedded.ts for the model): one worker per
 * work() call, at most `concurrency` jobs in flight, each holding a renewed lease.
 */
import { AppError } from "../../domain/errors.ts";
import type { JobContext, JobHandler, JobWorker, JsonValue } from "../../domain/ports.ts";
import { type JobRow, type JobsTable, LEASE_LOST_ERROR } from "./embedded-store.ts";
import { backoffDelay, type EventFanout, errorMessage, type QueueLogger } from "./shared.ts";

export interface EmbeddedSettings {
  leaseMs: number;
  pollMs: number;
  retentionMs: number;
  maxPayloadBytes: number;
  log: QueueLogger;
}

/** What a worker needs from the queue that created it. */
export interface WorkerHost {
  readonly table: JobsTable;
  readonly settings: EmbeddedSettings;
  readonly events: EventFanout;
  readonly instanceId: string;
}

const PRUNE_EVERY_MS = 60_000;
const MAX_ERROR_BACKOFF_MS = 30_000;

/** One pull loop for one queue; at most `concurrency` jobs in flight. */
export class EmbeddedWorker implements JobWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loopDone: Promise<void>;
  private readonly workerId: string;
  private stopping = false;
  private closing: Promise<void> | null = null;
  private claims = 0;
  /** Earliest run_at (ms) this worker knows of; shortens the idle wait for delayed jobs. */
  private nextDueAt = Number.POSITIVE_INFINITY;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private lastPruneAt = 0;
  private static seq = 0;

  constructor(
    private readonly q: WorkerHost,
    private readonly queue: string,
    private readonly handler: JobHandler,
    private readonly concurrency: number,
    private readonly onClosed: () => void,
  ) {
    this.workerId = `${q.instanceId}:w${++EmbeddedWorker.seq}`;
    this.loopDone = this.loop();
  }

  /** Ends the current idle wait now, or remembers a future due time. */
  wake(dueAt?: number): void {
    if (dueAt !== undefined && dueAt > Date.now()) {
      this.nextDueAt = Math.min(this.nextDueAt, dueAt);
    }
    this.signal();
  }

  /** Ends the current idle wait, or makes the next one return at once. */
  private signal(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping = true;
      this.signal();
      await this.loopDone;
      await Promise.all([...this.inFlight]);
      this.onClosed();
    })();
    return this.closing;
  }

  private async loop(): Promise<void> {
    let errors = 0;
    while (!this.stopping) {
      const free = this.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          await this.claim(free);
          errors = 0;
        } catch (err) {
          errors++;
          this.q.settings.log.error({ err: errorMessage(err), queue: this.queue }, "job claim failed");
          await this.idle(Math.min(this.q.settings.pollMs * 2 ** errors, MAX_ERROR_BACKOFF_MS));
          continue;
        }
      }
      await this.prune();
      // Woken early by an enqueue here, a finished job (a slot is free) or close().
      await this.idle(this.waitMs());
    }
  }

  private async claim(limit: number): Promise<number> {
    const { leaseMs } = this.q.settings;
    const token = `${this.workerId}#${++this.claims}`;
    const { claimed, lost } = await this.q.table.claim(this.queue, limit, token, Date.now(), leaseMs);
    for (const r of lost) {
      this.q.events.emit({ type: "failed", queue: r.queue, jobId: r.id, error: LEASE_LOST_ERROR, willRetry: false });
    }
    for (const row of claimed) {
      const p: Promise<void> = this.run(row, token).finally(() => {
        this.inFlight.delete(p);
        this.signal();
      });
      this.inFlight.add(p);
    }
    return claimed.length;
  }

  private waitMs(): number {
    const now = Date.now();
    if (this.nextDueAt <= now) this.nextDueAt = Number.POSITIVE_INFINITY;
    return Math.max(1, Math.min(this.q.settings.pollMs, this.nextDueAt - now));
  }

  private idle(ms: number): Promise<void> {
    // A wake-up that arrived while we were busy claiming must not be lost.
    if (this.stopping || this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = null;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private async prune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.lastPruneAt = now;
    try {
      await this.q.table.prune(this.queue, now - this.q.settings.retentionMs);
    } catch (err) {
      this.q.settings.log.warn({ err: errorMessage(err), queue: this.queue }, "pruning finished jobs failed");
    }
  }

  /** Runs one claimed job to an outcome. Never rejects: failures are recorded or logged. */
  private async run(row: JobRow, token: string): Promise<void> {
    const { table, events, settings } = this.q;
    const { queue, id } = row;
    const heartbeat = this.heartbeat(queue, id, token);
    try {
      const outcome = await this.attempt(row, token);
      if (!outcome.ok) {
        await this.recordFailure(row, token, outcome.error);
      } else if (await table.complete(queue, id, token, outcome.json, Date.now())) {
        events.emit({ type: "completed", queue, jobId: id, result: JSON.parse(outcome.json) as JsonValue });
      } else {
        settings.log.warn({ queue, jobId: id }, "job finished after its lease was lost; result dropped");
      }
    } catch (err) {
      // The outcome could not be stored: the lease will lapse and the job run again.
      settings.log.error({ err: errorMessage(err), queue, jobId: id }, "recording job outcome failed");
    } finally {
      heartbeat.stop();
    }
  }

  /** Calls the handler; anything it throws (or a result that cannot be stored) is a failed attempt. */
  private async attempt(
    row: JobRow,
    token: string,
  ): Promise<{ ok: true; json: string } | { ok: false; error: string }> {
    const { maxPayloadBytes } = this.q.settings;
    try {
      const result = await this.handler(this.context(row, token));
      const json = JSON.stringify(result ?? null);
      if (Buffer.byteLength(json) > maxPayloadBytes) {
        return { ok: false, error: `job result exceeds ${maxPayloadBytes} bytes` };
      }
      return { ok: true, json };
    } catch (err) {
      return { ok: false, error: errorMessage(err) };
    }
  }

  private context(row: JobRow, token: string): JobContext {
    const { table, events, settings } = this.q;
    const { queue, id } = row;
    return {
      id,
      name: row.name,
      data: JSON.parse(row.data) as JsonValue,
      attempt: Number(row.attempts_made),
      progress: async (value: JsonValue) => {
        const json = JSON.stringify(value ?? null);
        if (Buffer.byteLength(json) > settings.maxPayloadBytes) {
          throw new AppError("payload_too_large", `progress exceeds ${settings.maxPayloadBytes} bytes`);
        }
        // A worker that lost its lease must not report progress for the new holder's attempt.
        if (await table.progress(queue, id, token, json)) {
          events.emit({ type: "progress", queue, jobId: id, progress: value });
        }
      },
    };
  }

  private async recordFailure(row: JobRow, token: string, error: string): Promise<void> {
    const attempt = Number(row.attempts_made);
    const willRetry = attempt < Number(row.max_attempts);
    const now = Date.now();
    const retryAt = willRetry ? now + backoffDelay(Number(row.backoff_ms), attempt) : null;
    if (await this.q.table.fail(row.queue, row.id, token, error, retryAt, now)) {
      if (retryAt !== null) this.wake(retryAt);
      this.q.events.emit({ type: "failed", queue: row.queue, jobId: row.id, error, willRetry });
    } else {
      this.q.settings.log.warn(
        { queue: row.queue, jobId: row.id },
        "job failed after its lease was lost; not recorded",
      );
    }
  }

  /** Renews the lease every leaseMs/3; one renewal at a time, so a slow database cannot pile them up. */
  private heartbeat(queue: string, id: string, token: string): { stop(): void } {
    const { table, settings } = this.q;
    let busy = false;
    const timer = setInterval(
      () => {
        if (busy) return;
        busy = true;
        table
          .renew(queue, id, token, Date.now() + settings.leaseMs)
          .then((held) => {
            if (!held) settings.log.warn({ queue, jobId: id }, "job lease lost while running");
          })
          .catch((err: unknown) =>
            settings.log.error({ err: errorMessage(err), queue, jobId: id }, "lease renewal failed"),
          )
          .finally(() => {
            busy = false;
          });
      },
      Math.floor(settings.leaseMs / 3),
    );
    return { stop: () => clearInterval(timer) };
  }
}
