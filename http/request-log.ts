/**
 * A request's logger, created lazily: most requests log one access line and nothing else,
 * and building a pino child (with redaction) on every request showed up in profiles.
 */
import type { Logger } from "pino";

export class RequestLog {
  private child: Logger | null = null;
  private readonly fields: Record<string, string | number>;

  constructor(
    private readonly root: Logger,
    requestId: string,
  ) {
    this.fields = { request_id: requestId };
  }

  /** Adds fields (tenant_id, user_id, ...) to every later line of this request. */
  bind(extra: Record<string, string | number>): void {
    Object.assign(this.fields, extra);
    this.child = null;
  }

  get logger(): Logger {
    this.child ??= this.root.child(this.fields);
    return this.child;
  }

  /** The access line, written without building a child logger. */
  access(line: Record<string, string | number>): void {
    if (this.root.isLevelEnabled("info")) this.root.info({ ...this.fields, ...line }, "request");
  }
}
