/**
 * The embedded JobQueue: a durable queue in the control-plane database (SQLite or
 * Postgres) with no extra server. Jobs live in the `jobs` table (embedded-store.ts);
 * the pull loop is in embedded-worker.ts.
 *
 * - Workers pull: each worker polls every `pollMs`, and an enqueue in this process
 *   wakes the workers of that queue at once. A worker claims only as many jobs as it
 *   has free slots (in-flight < concurrency), so nothing is buffered in memory.
 * - A claim sets a lease (`leaseMs`) renewed every leaseMs/3 while the handler runs.
 *   If the process dies, the lease runs out and any worker (any process, the Python
 *   lab included) reclaims the job: jobs survive restarts and crashes.
 * - Failed attempts retry after backoffMs * 2^(attempt-1) until attempts run out.
 * - Events are in-process: listeners hear about jobs run by workers in this process.
 *   A listener in another process (or for jobs run by the lab) polls getJob().
 *
 * The queue does not own the SqlClient: close() stops the workers, and whoever
 * opened the client (the control-plane store) closes it.
 */
import { hostname } from "node:os";
import { AppError } from "../../domain/errors.ts";
import type {
  EnqueueOptions,
  JobEvent,
  JobHandler,
  JobInfo,
  JobQueue,
  JobWorker,
  JsonValue,
  SqlClient,
} from "../../domain/ports.ts";
import { JobsTable, toJobInfo } from "./embedded-store.ts";
import { type EmbeddedSettings, EmbeddedWorker, type WorkerHost } from "./embedded-worker.ts";
import {
  checkConcurrency,
  checkEnqueue,
  checkQueueName,
  DEFAULT_MAX_PAYLOAD_BYTES,
  EventFanout,
  type QueueLogger,
  stderrLogger,
} from "./shared.ts";

export interface EmbeddedQueueOptions {
  /** How long a claim holds without renewal; a crashed worker's job waits this long. */
  leaseMs?: number;
  /** Idle poll interval: how soon a job enqueued by another process is noticed. */
  pollMs?: number;
  /** Finished jobs older than this are deleted (keeps the table bounded). */
  retentionMs?: number;
  maxPayloadBytes?: number;
  logger?: QueueLogger;
}

function settings(o: EmbeddedQueueOptions): EmbeddedSettings {
  const s = {
    leaseMs: o.leaseMs ?? 30_000,
    pollMs: o.pollMs ?? 500,
    retentionMs: o.retentionMs ?? 7 * 86_400_000,
    maxPayloadBytes: o.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
  };
  for (const [k, v] of Object.entries(s)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`EmbeddedJobQueue: ${k} must be a positive integer`);
  }
  if (s.leaseMs < 30) throw new Error("EmbeddedJobQueue: leaseMs must be at least 30");
  return { ...s, log: o.logger ?? stderrLogger };
}

export class EmbeddedJobQueue implements JobQueue, WorkerHost {
  readonly table: JobsTable;
  readonly settings: EmbeddedSettings;
  readonly events: EventFanout;
  /** Unique per process and instance, so claim tokens never collide across restarts. */
  readonly instanceId = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  private readonly workers = new Map<string, Set<EmbeddedWorker>>();
  private closed = false;

  constructor(
    private readonly sql: SqlClient,
    opts: EmbeddedQueueOptions = {},
  ) {
    this.settings = settings(opts);
    this.table = new JobsTable(sql);
    this.events = new EventFanout(this.settings.log);
  }

  async enqueue(queue: string, name: string, data: JsonValue, opts?: EnqueueOptions): Promise<JobInfo> {
    this.assertOpen();
    const c = checkEnqueue(queue, name, data, opts, this.settings.maxPayloadBytes);
    const now = Date.now();
    const runAt = now + c.delayMs;
    const { row, created } = await this.table.insert({
      queue,
      id: c.jobId ?? crypto.randomUUID(),
      name,
      json: c.json,
      attempts: c.attempts,
      backoffMs: c.backoffMs,
      runAt,
      now,
      delayed: c.delayMs > 0,
    });
    if (created) for (const w of this.workers.get(queue) ?? []) w.wake(runAt);
    return toJobInfo(row);
  }

  async getJob(queue: string, id: string): Promise<JobInfo | null> {
    checkQueueName(queue);
    const row = await this.table.get(queue, id);
    return row ? toJobInfo(row) : null;
  }

  work(queue: string, handler: JobHandler, opts?: { concurrency?: number }): JobWorker {
    this.assertOpen();
    checkQueueName(queue);
    const concurrency = checkConcurrency(opts?.concurrency);
    let set = this.workers.get(queue);
    if (!set) {
      set = new Set();
      this.workers.set(queue, set);
    }
    const worker: EmbeddedWorker = new EmbeddedWorker(this, queue, handler, concurrency, () => {
      set.delete(worker);
      if (set.size === 0 && this.workers.get(queue) === set) this.workers.delete(queue);
    });
    set.add(worker);
    return worker;
  }

  onEvent(queue: string, listener: (e: JobEvent) => void): () => void {
    checkQueueName(queue);
    return this.events.add(queue, listener);
  }

  async ping(): Promise<void> {
    await this.sql.get("SELECT 1 AS ok");
  }

  /** Stops every worker of this instance (waiting for their in-flight jobs). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.workers.values()].flatMap((s) => [...s]);
    await Promise.all(all.map((w) => w.close()));
    this.events.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError("unavailable", "job queue is closed");
  }
}
