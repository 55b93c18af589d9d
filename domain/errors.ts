/**
 * One error type with a string code, and one table from code to HTTP status and
 * WebSocket close code. Everything the service refuses goes through AppError.
 */

export const ERROR_TABLE = {
  bad_request: { status: 400, close: 1003 },
  unauthenticated: { status: 401, close: 4401 },
  forbidden: { status: 403, close: 4403 },
  tenant_inactive: { status: 403, close: 4403 },
  not_found: { status: 404, close: 4404 },
  conflict: { status: 409, close: 4409 },
  payload_too_large: { status: 413, close: 1009 },
  /** A body that arrived too slowly (slow-loris); answered with Connection: close. */
  request_timeout: { status: 408, close: 1008 },
  /** A request the route has, but not under this method (sent with an Allow header). */
  method_not_allowed: { status: 405, close: 1003 },
  /** A body type or Content-Encoding the route does not take. */
  unsupported_media_type: { status: 415, close: 1003 },
  /** Request headers past the installation's bound. */
  headers_too_large: { status: 431, close: 1009 },
  /** A WebSocket endpoint called without a WebSocket handshake. */
  upgrade_required: { status: 426, close: 1002 },
  validation: { status: 422, close: 1007 },
  rate_limited: { status: 429, close: 4429 },
  quota_exceeded: { status: 429, close: 4429 },
  internal: { status: 500, close: 1011 },
  unavailable: { status: 503, close: 1013 },
  not_ready: { status: 503, close: 1013 },
} as const;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** One element of the validation body of spec section 7. */
export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Present for code "validation": the items of the section 7 body. */
    readonly issues?: ValidationIssue[],
    /** Extra response headers (e.g. Retry-After for rate limits). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  get closeCode(): number {
    return ERROR_TABLE[this.code].close;
  }

  /** The response body: section 7 validation body, or {detail: message}. */
  toBody(): { detail: string | ValidationIssue[] } {
    if (this.code === "validation" && this.issues) return { detail: this.issues };
    return { detail: this.message };
  }

  static validation(issues: ValidationIssue[]): AppError {
    return new AppError("validation", "Validation failed", issues);
  }
}

export function statusOf(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}
