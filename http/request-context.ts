/**
 * The request's context, shared by the Hono chain (http/app.ts) and the hot path
 * (http/hot-path.ts): the request id (echoed when well-formed, else made), the request's
 * logger, one access-log line per request, and the bound on request headers.
 */
import { maxHeaderSize } from "node:http";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { AppEnv } from "./context.ts";
import { RequestLog } from "./request-log.ts";

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Our bound on a request's headers. Bun refuses past its own --max-http-header-size
 * (16 KiB by default) with an empty 431 before this code runs; started with a larger Bun
 * limit, the requests between the two get this problem document instead.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

export function headerBytes(headers: Headers): number {
  let n = 0;
  headers.forEach((v, k) => {
    n += k.length + v.length + 4;
  });
  return n;
}

/**
 * Bun's own bound on a request head (--max-http-header-size; node:http reports it). Bun
 * answers an empty 431 past it before any handler runs, so while it is no larger than
 * ours, a request off the wire cannot carry more than MAX_HEADER_BYTES of headers, and
 * counting them (a callback per header, ~2 us a request) would prove nothing.
 */
const RUNTIME_HEADER_BOUND = maxHeaderSize;

/**
 * True when the headers exceed MAX_HEADER_BYTES. `fromWire`: Bun.serve handed the request
 * over (a server argument came with it); requests built in-process are always counted.
 */
export function headersTooLarge(headers: Headers, fromWire: boolean): boolean {
  if (fromWire && RUNTIME_HEADER_BOUND <= MAX_HEADER_BYTES) return false;
  return headerBytes(headers) > MAX_HEADER_BYTES;
}

/** The caller's X-Request-Id when it is well-formed, else a new one. */
export function requestIdFor(incoming: string | null | undefined): string {
  return incoming && REQUEST_ID_RE.test(incoming) ? incoming : crypto.randomUUID();
}

/** Request id (echoed or made), the request's logger, and one access-log line per request. */
export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = requestIdFor(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    c.set("log", new RequestLog(logger, requestId));
    c.header("X-Request-Id", requestId);
    const started = performance.now();
    await next();
    c.get("log").access({
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
  };
}
