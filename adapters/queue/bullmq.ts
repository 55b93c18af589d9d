/**
 * The JobQueue port over BullMQ on Redis (the cluster profile). The Python lab consumes
 * the same queues with the Python `bullmq` package (lab/src/lab/jobs/redis_worker.py),
 * so key prefix, queue names and job options must stay as BullMQ expects them.
 *
 * Semantics match the embedded adapter: attempts with exponential backoff, jobId
 * dedup, progress, and jobs that survive restarts (a job whose worker died is found
 * by another worker's stalled-job check once its lock lapses, and run again).
 *
 * Events: progress, completed and final failures come from BullMQ's event stream, so
 * listeners hear about jobs run in any process (the lab included). Failures that will
 * be retried are not on that stream with their error, so those come from workers in
 * this process only.
 */
import { type Job, type JobProgress, Queue, QueueEvents, Worker } from "bullmq";
import { AppError } from "../../domain/errors.ts";
import type {
  EnqueueOptions,
  JobEvent,
  JobHandler,
  JobInfo,
  JobQueue,
  JobStatus,
  JobWorker,
  JsonValue,
} from "../../domain/ports.ts";
import {
  checkConcurrency,
  checkEnqueue,
  checkQueueName,
  DEFAULT_MAX_PAYLOAD_BYTES,
  EventFanout,
  errorMessage,
  type QueueLogger,
  stderrLogger,
} from "./shared.ts";

export interface BullQueueOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  /** Key prefix; the lab must use the same one. Tests use a unique prefix each. */
  prefix?: string;
  /** How long a worker's lock on a job lasts without renewal (BullMQ renews it at half). */
  lockDurationMs?: number;
  /**
   * How often workers look for jobs whose lock lapsed (their worker died). BullMQ
   * throttles this check across all workers of a queue by the last checker's interval,
   * so every worker (the lab's included) should use the same value.
   */
  stalledIntervalMs?: number;
  /** Finished jobs kept per queue (count and age) so Redis memory stays bounded. */
  keepFinished?: { count: number; ageSeconds: number };
  maxPayloadBytes?: number;
  logger?: QueueLogger;
}

const HEALTH_QUEUE = "cairn-health";

type Data = JsonValue;
type BullJob = Job<Data, JsonValue | null, string>;

function toStatus(state: string): JobStatus | null {
  switch (state) {
    case "completed":
    case "failed":
    case "active":
    case "delayed":
      return state;
    case "waiting":
    case "prioritized":
    case "waiting-children":
      return "waiting";
    default:
      return null; // "unknown": removed or never existed
  }
}

/** JsonValue minus null is a JobProgress; BullMQ stores null as JSON too, it just does not type it. */
function toProgress(v: JsonValue): JobProgress {
  return v as JobProgress;
}

export class BullJobQueue implements JobQueue {
  private readonly prefix: string;
  private readonly connection: { url: string };
  private readonly log: QueueLogger;
  private readonly maxPayloadBytes: number;
  private readonly lockDuration: number;
  private readonly stalledInterval: number;
  private readonly keep: { count: number; age: number };
  private readonly queues = new Map<string, Queue<Data, JsonValue | null, string>>();
  private readonly workers = new Set<JobWorker>();
  private readonly streams = new Map<string, QueueEvents>();
  private readonly fanout: EventFanout;
  private closed = false;

  constructor(opts: BullQueueOptions) {
    if (!/^rediss?:\/\//.test(opts.url)) throw new Error("BullJobQueue: url must start with redis:// or rediss://");
    this.connection = { url: opts.url };
    this.prefix = opts.prefix ?? "cairn";
    this.log = opts.logger ?? stderrLogger;
    this.maxPayloadBytes = opts.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    this.lockDuration = opts.lockDurationMs ?? 30_000;
    this.stalledInterval = opts.stalledIntervalMs ?? 30_000;
    const keep = opts.keepFinished ?? { count: 10_000, ageSeconds: 7 * 86_400 };
    this.keep = { count: keep.count, age: keep.ageSeconds };
    this.fanout = new EventFanout(this.log);
  }

  async enqueue(queue: string, name: string, data: JsonValue, opts?: EnqueueOptions): Promise<JobInfo> {
    this.assertOpen();
    const c = checkEnqueue(queue, name, data, opts, this.maxPayloadBytes);
    const q = this.queueFor(queue);
    const added = await q.add(name, data, {
      ...(c.jobId !== undefined ? { jobId: c.jobId } : {}),
      attempts: c.attempts,
      backoff: { type: "exponential", delay: c.backoffMs },
      delay: c.delayMs,
      removeOnComplete: this.keep,
      removeOnFail: this.keep,
    });
    // For a duplicate jobId BullMQ returns a Job built from *our* arguments; read the stored one.
    const info = added.id ? await this.getJob(queue, added.id) : null;
    if (!info) throw new AppError("internal", `job ${queue}/${added.id ?? "?"} not found right after enqueue`);
    return info;
  }

  async getJob(queue: string, id: string): Promise<JobInfo | null> {
    checkQueueName(queue);
    const q = this.queueFor(queue);
    // State and hash are two reads. Reading the state first means the hash is never
    // older than the state (no "completed" without its result); a finish in between is
    // caught by re-reading the state, since finished states do not change.
    let state = await q.getJobState(id);
    const job = (await q.getJob(id)) as BullJob | undefined;
    if (!job) return null;
    if (job.finishedOn && state !== "completed" && state !== "failed") state = await q.getJobState(id);
    const status = toStatus(state);
    if (!status) return null;
    const attempts = job.attemptsMade + (status === "active" ? 1 : 0);
    return {
      id,
      queue,
      name: job.name,
      data: job.data,
      status,
      attemptsMade: attempts,
      maxAttempts: job.opts.attempts ?? 1,
      progress: (job.progress ?? 0) as JsonValue,
      result: status === "completed" ? (job.returnvalue ?? null) : null,
      error: status === "completed" ? null : job.failedReason || null,
      createdAt: new Date(job.timestamp).toISOString(),
      finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    };
  }

  work(queue: string, handler: JobHandler, opts?: { concurrency?: number }): JobWorker {
    this.assertOpen();
    checkQueueName(queue);
    const concurrency = checkConcurrency(opts?.concurrency);
    const maxBytes = this.maxPayloadBytes;
    const worker = new Worker<Data, JsonValue | null, string>(
      queue,
      async (job) => {
        let result: JsonValue | undefined;
        try {
          result = await handler({
            id: job.id ?? "",
            name: job.name,
            data: job.data,
            attempt: job.attemptsMade + 1,
            progress: async (value) => {
              if (Buffer.byteLength(JSON.stringify(value ?? null)) > maxBytes) {
                throw new AppError("payload_too_large", `progress exceeds ${maxBytes} bytes`);
              }
              await job.updateProgress(toProgress(value));
            },
          });
        } catch (err) {
          // BullMQ records err.message; make sure a thrown string is not lost.
          throw err instanceof Error ? err : new Error(errorMessage(err));
        }
        const out = result ?? null;
        if (Buffer.byteLength(JSON.stringify(out)) > maxBytes) throw new Error(`job result exceeds ${maxBytes} bytes`);
        return out;
      },
      {
        connection: this.connection,
        prefix: this.prefix,
        concurrency,
        lockDuration: this.lockDuration,
        stalledInterval: this.stalledInterval,
        autorun: true,
      },
    );
    worker.on("error", (err) => this.log.error({ err: errorMessage(err), queue }, "bullmq worker error"));
    worker.on("failed", (job, err) => {
      // After a failed attempt BullMQ has already counted it in attemptsMade.
      if (job && job.attemptsMade < (job.opts.attempts ?? 1) && job.id) {
        this.fanout.emit({ type: "failed", queue, jobId: job.id, error: err.message, willRetry: true });
      }
    });
    let closing: Promise<void> | null = null;
    const handle: JobWorker = {
      close: () => {
        // Not forced: BullMQ stops fetching and waits for the jobs in flight.
        closing ??= worker.close().finally(() => this.workers.delete(handle));
        return closing;
      },
    };
    this.workers.add(handle);
    return handle;
  }

  onEvent(queue: string, listener: (e: JobEvent) => void): () => void {
    checkQueueName(queue);
    const off = this.fanout.add(queue, listener);
    if (!this.streams.has(queue) && !this.closed) this.streams.set(queue, this.openStream(queue));
    return () => {
      off();
      const stream = this.streams.get(queue);
      if (stream && !this.fanout.has(queue)) {
        this.streams.delete(queue);
        stream
          .close()
          .catch((err: unknown) => this.log.warn({ err: errorMessage(err), queue }, "closing queue events failed"));
      }
    };
  }

  async ping(): Promise<void> {
    await this.queueFor(HEALTH_QUEUE).getJobCounts("waiting");
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.workers].map((w) => w.close()));
    const streams = [...this.streams.values()];
    this.streams.clear();
    this.fanout.clear();
    await Promise.all(streams.map((s) => s.close()));
    const queues = [...this.queues.values()];
    this.queues.clear();
    await Promise.all(queues.map((q) => q.close()));
  }

  private queueFor(name: string): Queue<Data, JsonValue | null, string> {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue<Data, JsonValue | null, string>(name, { connection: this.connection, prefix: this.prefix });
      q.on("error", (err) => this.log.error({ err: errorMessage(err), queue: name }, "bullmq queue error"));
      this.queues.set(name, q);
    }
    return q;
  }

  /**
   * Starts reading the queue's event stream from "now" (by id, not "$"), so events
   * written while the reader is still connecting are not missed. Stream ids use the
   * Redis server clock; with skew, a listener may see a few events from just before it
   * subscribed, or miss some from just after.
   */
  private openStream(queue: string): QueueEvents {
    const qe = new QueueEvents(queue, {
      connection: this.connection,
      prefix: this.prefix,
      lastEventId: `${Date.now()}-0`,
      autorun: true,
    });
    qe.on("error", (err) => this.log.error({ err: errorMessage(err), queue }, "bullmq queue events error"));
    qe.on("progress", ({ jobId, data }) => {
      this.fanout.emit({ type: "progress", queue, jobId, progress: data as JsonValue });
    });
    qe.on("completed", ({ jobId, returnvalue }) => {
      this.fanout.emit({ type: "completed", queue, jobId, result: (returnvalue ?? null) as JsonValue });
    });
    qe.on("failed", ({ jobId, failedReason }) => {
      this.fanout.emit({ type: "failed", queue, jobId, error: failedReason, willRetry: false });
    });
    return qe;
  }

  private assertOpen(): void {
    if (this.closed) throw new AppError("unavailable", "job queue is closed");
  }
}
