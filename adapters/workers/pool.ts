/**
 * A bounded pool of worker threads, shared by the adapters that keep CPU-heavy work off the
 * service's event loop (document search, CRDT merges, document extraction).
 *
 * - A fixed number of threads, started on first use; a job goes to a thread only when that
 *   thread is idle, so a thread runs one job at a time and a slow job never hides others
 *   behind it in a thread's message queue.
 * - One FIFO queue of waiting jobs, bounded by count and, optionally, by bytes; past either
 *   bound a job is refused at once with 503 and Retry-After (STYLE habit 8: every queue bounded).
 * - An optional deadline per job, counted from the moment a thread takes it: past it the
 *   thread is terminated (the only way to stop a stuck parser) and replaced on next use.
 * - A thread that dies fails its job and is replaced on next use.
 * - Optionally, a job carries a key (a tenant) and an AbortSignal: at most `maxQueuedPerKey`
 *   of one key's jobs wait, so one caller cannot fill the queue for the others; an aborted
 *   job leaves the queue, or, when running, has its thread terminated and replaced.
 * - An idle thread does not keep the process alive; a busy one does.
 *
 * Each user speaks its own message protocol: `encode` turns a job into the message a thread
 * receives, `decode` reads a thread's reply (null for a message that answers no job).
 */
import { AppError } from "../../domain/errors.ts";

export type Decoded<R> = { id: number; ok: true; value: R } | { id: number; ok: false; error: Error };

export interface WorkerPoolOptions<Job, R, In, Out> {
  /** What the threads do, for error messages ("document search"). */
  name: string;
  /** The worker module. */
  url: URL;
  /** Threads (jobs running at the same time); at least 1. */
  size: number;
  /** Jobs waiting for a thread beyond those running; past it new jobs are refused with 503. */
  maxQueued: number;
  /** Bytes of waiting jobs (with `bytesOf`); past it new jobs are refused with 503. */
  maxQueuedBytes?: number;
  bytesOf?(job: Job): number;
  /** Deadline per job from the moment a thread takes it; past it the thread is replaced. */
  timeoutMs?: number;
  /** The error a job past its deadline fails with (default: AppError "unavailable"). */
  timeoutError?(ms: number): Error;
  /** Jobs of one key (RunOptions.key) waiting at most; past it that key's jobs are refused with 503. */
  maxQueuedPerKey?: number;
  /** Seconds in the Retry-After header of a refusal (default 5). */
  retryAfterSeconds?: number;
  encode(id: number, job: Job): In;
  decode(msg: Out): Decoded<R> | null;
  /**
   * A graceful close: running jobs may finish (up to `timeoutMs`), then each thread is sent
   * `message` and given `graceMs` to answer with a message `isDone` accepts. Without it,
   * close fails running jobs at once.
   */
  shutdown?: { message: In; isDone(msg: Out): boolean; graceMs?: number };
}

/** Per-job options of `run`; both optional, so existing callers are unchanged. */
export interface RunOptions {
  /** Who the job is for (a tenant): bounds its queued jobs by `maxQueuedPerKey`. */
  key?: string;
  /** Aborted: the job leaves the queue, or its running thread is terminated and replaced. */
  signal?: AbortSignal;
}

/** The job's signal was aborted (its caller went away) before it finished. */
export class JobCancelled extends Error {}

interface Pending<Job, R> {
  id: number;
  job: Job;
  bytes: number;
  key: string | undefined;
  resolve(v: R): void;
  reject(e: Error): void;
  /** Detaches the abort listener. */
  detach(): void;
}

interface Slot<Job, R> {
  worker: Worker | null;
  current: Pending<Job, R> | null;
  timer: ReturnType<typeof setTimeout> | null;
}

export class WorkerPool<Job, R, In = unknown, Out = unknown> {
  readonly #opts: WorkerPoolOptions<Job, R, In, Out>;
  readonly #slots: Slot<Job, R>[];
  readonly #queue: Pending<Job, R>[] = [];
  #queuedBytes = 0;
  #nextId = 1;
  #closed = false;
  #cancelled = 0;

  constructor(opts: WorkerPoolOptions<Job, R, In, Out>) {
    if (!Number.isInteger(opts.size) || opts.size < 1)
      throw new RangeError(`${opts.name} pool: size must be an integer >= 1, got ${opts.size}`);
    if (!Number.isInteger(opts.maxQueued) || opts.maxQueued < 0)
      throw new RangeError(`${opts.name} pool: maxQueued must be an integer >= 0, got ${opts.maxQueued}`);
    this.#opts = opts;
    this.#slots = Array.from({ length: opts.size }, () => ({ worker: null, current: null, timer: null }));
  }

  /** Jobs running and waiting (for metrics and tests). */
  get load(): { running: number; queued: number; queuedBytes: number } {
    return {
      running: this.#slots.filter((s) => s.current).length,
      queued: this.#queue.length,
      queuedBytes: this.#queuedBytes,
    };
  }

  /** Jobs cancelled by their signal so far (queued or running), for metrics and tests. */
  get cancelled(): number {
    return this.#cancelled;
  }

  /** Jobs of one key running and waiting. */
  loadOf(key: string): { running: number; queued: number } {
    return {
      running: this.#slots.filter((s) => s.current?.key === key).length,
      queued: this.#queue.filter((p) => p.key === key).length,
    };
  }

  run(job: Job, opts: RunOptions = {}): Promise<R> {
    const o = this.#opts;
    if (this.#closed) return Promise.reject(new AppError("unavailable", `${o.name} is shutting down`));
    const { key, signal } = opts;
    if (signal?.aborted) return Promise.reject(new JobCancelled(`${o.name} job cancelled`));
    const bytes = o.bytesOf?.(job) ?? 0;
    const idle = this.#queue.length === 0 && this.#slots.some((s) => !s.current);
    const full =
      this.#queue.length >= o.maxQueued ||
      (o.maxQueuedBytes !== undefined && this.#queuedBytes + bytes > o.maxQueuedBytes);
    const keyFull =
      key !== undefined &&
      o.maxQueuedPerKey !== undefined &&
      this.#queue.filter((p) => p.key === key).length >= o.maxQueuedPerKey;
    if (!idle && (full || keyFull)) {
      return Promise.reject(
        new AppError("unavailable", `${o.name} is at capacity; retry shortly`, undefined, {
          "Retry-After": String(o.retryAfterSeconds ?? 5),
        }),
      );
    }
    return new Promise<R>((resolve, reject) => {
      const onAbort = () => this.#cancel(p);
      const p: Pending<Job, R> = {
        id: this.#nextId++,
        job,
        bytes,
        key,
        resolve,
        reject,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(p);
      this.#queuedBytes += bytes;
      this.#pump();
    });
  }

  /** An aborted job: out of the queue, or its thread terminated (the only way to stop a parser). */
  #cancel(p: Pending<Job, R>): void {
    const cancelled = new JobCancelled(`${this.#opts.name} job cancelled`);
    const i = this.#queue.indexOf(p);
    if (i >= 0) {
      this.#cancelled++;
      this.#queue.splice(i, 1);
      this.#queuedBytes -= p.bytes;
      p.reject(cancelled);
      return;
    }
    const slot = this.#slots.find((s) => s.current === p);
    if (!slot) return;
    this.#cancelled++;
    this.#kill(slot);
    p.reject(cancelled);
    this.#pump();
  }

  /** Sends `msg` to every started thread, ordered before any job it takes afterwards. */
  broadcast(msg: In): void {
    for (const s of this.#slots) s.worker?.postMessage(msg);
  }

  /** Refuses new work and fails waiting jobs; running ones finish (graceful) or fail at once. */
  async close(): Promise<void> {
    const o = this.#opts;
    this.#closed = true;
    const closing = () => new AppError("unavailable", `${o.name} is shutting down`);
    for (const p of this.#queue.splice(0)) {
      p.detach();
      p.reject(closing());
    }
    this.#queuedBytes = 0;
    const shutdown = o.shutdown;
    if (!shutdown) {
      for (const slot of this.#slots) {
        const p = slot.current;
        this.#kill(slot);
        p?.reject(closing());
      }
      return;
    }
    const deadline = Date.now() + (o.timeoutMs ?? 0);
    while (this.#slots.some((s) => s.current) && Date.now() < deadline) await Bun.sleep(20);
    await Promise.all(
      this.#slots.map(async (slot) => {
        const w = slot.worker;
        if (!w) return;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, shutdown.graceMs ?? 2000);
          w.addEventListener("message", (ev: MessageEvent<Out>) => {
            if (shutdown.isDone(ev.data)) {
              clearTimeout(t);
              resolve();
            }
          });
          w.postMessage(shutdown.message);
        });
        const p = slot.current;
        this.#kill(slot);
        p?.reject(closing());
      }),
    );
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.current) continue;
      const next = this.#queue.shift();
      if (!next) return;
      this.#queuedBytes -= next.bytes;
      this.#start(slot, next);
    }
  }

  #start(slot: Slot<Job, R>, p: Pending<Job, R>): void {
    const o = this.#opts;
    const worker = slot.worker ?? this.#spawn(slot);
    slot.current = p;
    refCount(worker).ref();
    if (o.timeoutMs !== undefined) {
      const ms = o.timeoutMs;
      slot.timer = setTimeout(() => {
        this.#kill(slot);
        p.reject(o.timeoutError?.(ms) ?? new AppError("unavailable", `${o.name} took longer than ${ms} ms`));
        this.#pump();
      }, ms);
    }
    // Copied, not transferred: the caller's buffers stay usable.
    worker.postMessage(o.encode(p.id, p.job));
  }

  #spawn(slot: Slot<Job, R>): Worker {
    const worker = new Worker(this.#opts.url.href);
    worker.onmessage = (ev: MessageEvent<Out>) => {
      const reply = this.#opts.decode(ev.data);
      const p = slot.current;
      if (!reply || !p || p.id !== reply.id) return;
      this.#finish(slot);
      if (reply.ok) p.resolve(reply.value);
      else p.reject(reply.error);
      this.#pump();
    };
    worker.onerror = (ev: ErrorEvent) => {
      // The thread died (e.g. out of memory): fail its job; a fresh thread takes the next.
      const p = slot.current;
      this.#kill(slot);
      p?.reject(new AppError("internal", `${this.#opts.name} thread failed: ${ev.message}`));
      this.#pump();
    };
    // A thread that exits on its own (not terminated here) likewise.
    worker.addEventListener("close", () => {
      if (slot.worker !== worker) return;
      const p = slot.current;
      this.#kill(slot);
      p?.reject(new AppError("internal", `${this.#opts.name} thread exited`));
      this.#pump();
    });
    slot.worker = worker;
    return worker;
  }

  #finish(slot: Slot<Job, R>): void {
    slot.current?.detach();
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.current = null;
    if (slot.worker) refCount(slot.worker).unref();
  }

  #kill(slot: Slot<Job, R>): void {
    this.#finish(slot);
    slot.worker?.terminate();
    slot.worker = null;
  }
}

/** Bun's Worker has ref()/unref() (Node-style); the DOM typing in use here lacks them. */
function refCount(w: Worker): { ref(): void; unref(): void } {
  return w as unknown as { ref(): void; unref(): void };
}
