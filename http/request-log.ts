/**
 * A request's logger, created lazily: most requests log one access line and nothing else,
 * and building a pino child (with redaction) on every request showed up in profiles.
 * The bound fields are kept as the request id plus a list of bound objects, merged only
 * when a line is written: at the levels where nothing is written (the hot path under load,
 * benches at `silent`) a request then allocates no field object at all.
 */
import type { Logger } from "pino";

type Fields = Record<string, string | number>;

export class RequestLog {
  private child: Logger | null = null;
  /** What bind() added, in order (a later key wins, as with one merged object). */
  private bound: Fields[] | null = null;

  constructor(
    private readonly root: Logger,
    private readonly requestId: string,
  ) {}

  /** Adds fields (tenant_id, user_id, ...) to every later line of this request. */
  bind(extra: Fields): void {
    if (this.bound === null) this.bound = [extra];
    else this.bound.push(extra);
    this.child = null;
  }

  get logger(): Logger {
    this.child ??= this.root.child(this.fields());
    return this.child;
  }

  /** The access line, written without building a child logger. */
  access(line: Fields): void {
    if (this.root.isLevelEnabled("info")) this.root.info(Object.assign(this.fields(), line), "request");
  }

  /** access() for a request that started at `started` (performance.now()), built only when written. */
  accessSince(method: string, path: string, status: number, started: number): void {
    if (!this.root.isLevelEnabled("info")) return;
    const duration_ms = Math.round((performance.now() - started) * 100) / 100;
    this.root.info(Object.assign(this.fields(), { method, path, status, duration_ms }), "request");
  }

  private fields(): Fields {
    const out: Fields = { request_id: this.requestId };
    if (this.bound !== null) for (const b of this.bound) Object.assign(out, b);
    return out;
  }
}
