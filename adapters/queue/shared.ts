/**
 * What both JobQueue adapters share: option checks, the logger shape they report
 * internal errors to, and the in-process event fan-out. Enqueue rules are checked
 * here once so a call that works on the embedded profile also works on BullMQ
 * (BullMQ refuses integer-like and ':' ids; so do we, everywhere).
 */
import { AppError } from "../../domain/errors.ts";
import type { EnqueueOptions, JobEvent, JsonValue } from "../../domain/ports.ts";

/** The subset of a pino logger the queues use; internal failures are never swallowed. */
export interface QueueLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Used when the composition root passes no logger: one JSON line on stderr. */
export const stderrLogger: QueueLogger = {
  warn: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: "warn", msg, ...obj })}\n`),
  error: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: "error", msg, ...obj })}\n`),
};

export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 1000;
export const MAX_ATTEMPTS = 100;
export const MAX_CONCURRENCY = 256;
/** Payloads and results are JSON documents meant for ids and parameters, not bulk data. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
/** Stored error messages are cut to this many characters. */
export const MAX_ERROR_CHARS = 4000;

export interface CheckedEnqueue {
  jobId: string | undefined;
  attempts: number;
  backoffMs: number;
  delayMs: number;
  json: string;
}

const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

function bad(message: string): AppError {
  return new AppError("bad_request", message);
}

function intIn(v: number | undefined, dflt: number, min: number, max: number, what: string): number {
  const n = v ?? dflt;
  if (!Number.isInteger(n) || n < min || n > max) throw bad(`${what} must be an integer in [${min}, ${max}]`);
  return n;
}

export function checkQueueName(queue: string): void {
  if (!NAME_RE.test(queue)) throw bad(`queue name must match ${NAME_RE}`);
}

export function checkEnqueue(
  queue: string,
  name: string,
  data: JsonValue,
  opts: EnqueueOptions | undefined,
  maxPayloadBytes: number,
): CheckedEnqueue {
  checkQueueName(queue);
  if (!NAME_RE.test(name)) throw bad(`job name must match ${NAME_RE}`);
  const jobId = opts?.jobId;
  if (jobId !== undefined) {
    if (jobId.length === 0 || jobId.length > 256) throw bad("jobId must be 1..256 characters");
    if (jobId.includes(":")) throw bad("jobId must not contain ':'");
    if (`${Number.parseInt(jobId, 10)}` === jobId) throw bad("jobId must not be an integer");
  }
  const json = JSON.stringify(data);
  if (json === undefined) throw bad("job data must be JSON");
  if (Buffer.byteLength(json) > maxPayloadBytes) {
    throw new AppError("payload_too_large", `job data exceeds ${maxPayloadBytes} bytes`);
  }
  return {
    jobId,
    attempts: intIn(opts?.attempts, DEFAULT_ATTEMPTS, 1, MAX_ATTEMPTS, "attempts"),
    backoffMs: intIn(opts?.backoffMs, DEFAULT_BACKOFF_MS, 0, 86_400_000, "backoffMs"),
    delayMs: intIn(opts?.delayMs, 0, 0, 31_536_000_000, "delayMs"),
    json,
  };
}

export function checkConcurrency(concurrency: number | undefined): number {
  return intIn(concurrency, 1, 1, MAX_CONCURRENCY, "concurrency");
}

/** delay = base * 2^(attempt-1), where attempt is the attempt that just failed (1-based). */
export function backoffDelay(baseMs: number, attempt: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1);
}

export function errorMessage(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.length > MAX_ERROR_CHARS ? `${msg.slice(0, MAX_ERROR_CHARS)}…` : msg;
}

/**
 * Per-queue listener sets. A throwing listener is logged and does not stop the
 * others or the worker that emitted the event.
 */
export class EventFanout {
  private readonly listeners = new Map<string, Set<(e: JobEvent) => void>>();

  constructor(private readonly log: QueueLogger) {}

  add(queue: string, listener: (e: JobEvent) => void): () => void {
    let set = this.listeners.get(queue);
    if (!set) {
      set = new Set();
      this.listeners.set(queue, set);
    }
    set.add(listener);
    return () => {
      const s = this.listeners.get(queue);
      s?.delete(listener);
      if (s?.size === 0) this.listeners.delete(queue);
    };
  }

  has(queue: string): boolean {
    return (this.listeners.get(queue)?.size ?? 0) > 0;
  }

  emit(e: JobEvent): void {
    const set = this.listeners.get(e.queue);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(e);
      } catch (err) {
        this.log.error(
          { err: errorMessage(err), queue: e.queue, jobId: e.jobId, event: e.type },
          "job event listener threw",
        );
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
