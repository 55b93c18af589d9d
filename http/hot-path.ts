/**
 * The hot path: `GET /v1/user/me` answered without Hono's router and middleware chain.
 *
 * The route is the API's most frequent call (dashboards poll it) and its own work is small,
 * so the framework's per-request layers (router lookup, a context object, one closure per
 * middleware, Headers rebuilt per c.header) were most of its cost: Hono answering a
 * constant from its first middleware served ~29k req/s where the route served ~13k (one
 * loaded run, not side by side with the ceiling).
 *
 * Every check of the Hono route runs here, through the same functions in the same order:
 * hostile-input guards (a request that has a body, a Content-Encoding or oversized headers
 * goes to Hono, which refuses it as before), the request id, bearer authentication
 * (Authenticator.fromBearer: JWT verification, user lookup, tenant match), admitUser (tenant
 * active, rate limits, usage), the profile, the access log line, and errors rendered by
 * appErrorProblem exactly as the app's error handler renders them. The Hono route stays
 * registered: it is the documented definition (OpenAPI) and serves every other shape of
 * the URL (a query string, a trailing slash, other methods).
 */
import type { Logger } from "pino";
import { AppError } from "../domain/errors.ts";
import { admitUser } from "./auth/guards.ts";
import type { AppDeps } from "./deps.ts";
import { appErrorProblem } from "./problem.ts";
import { headersTooLarge, requestIdFor } from "./request-context.ts";
import { RequestLog } from "./request-log.ts";

type Fetch = (req: Request, ...rest: never[]) => Response | Promise<Response>;

export const HOT_PATH = "/v1/user/me";

/** True when `url` (absolute, as Bun hands it over) has exactly HOT_PATH as its path: no query. */
export function isHotUrl(url: string): boolean {
  if (!url.endsWith(HOT_PATH)) return false;
  const scheme = url.indexOf("://");
  return scheme > 0 && url.indexOf("/", scheme + 3) === url.length - HOT_PATH.length;
}

/**
 * What Hono's ingress middleware would refuse (or must inspect) goes to Hono: a body (the
 * body limit and JSON-depth guards), any Content-Encoding (refused as 415) and headers past
 * the bound (431; request-context.ts). Nothing has been counted or logged for the request yet.
 * `fromWire`: Bun.serve handed the request over (a server argument came with it).
 */
function needsIngressGuards(req: Request, fromWire: boolean): boolean {
  const h = req.headers;
  if (h.get("content-encoding") !== null) return true;
  if (!fromWire) {
    // Built in-process (tests, the MCP server): nothing bounded it, and a GET may carry an
    // undeclared body there.
    return req.body !== null || headersTooLarge(h, false);
  }
  // Off the wire a body is declared (HTTP/1.1 framing); asking req.body makes a stream object.
  const length = h.get("content-length");
  if ((length !== null && length !== "0") || h.get("transfer-encoding") !== null) return true;
  return headersTooLarge(h, true);
}

/**
 * Wraps the app's fetch: GET HOT_PATH is served here, everything else by `fallback`. The
 * second argument is what Bun.serve passes (the server), as composition/service.ts forwards it.
 */
export function withHotPath<F extends Fetch>(deps: AppDeps, fallback: F): F {
  return ((req: Request, ...rest: never[]) => {
    if (req.method !== "GET" || !isHotUrl(req.url) || needsIngressGuards(req, rest[0] !== undefined)) {
      return fallback(req, ...rest);
    }
    return serveProfile(deps, req);
  }) as F;
}

async function serveProfile(deps: AppDeps, req: Request): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFor(req.headers.get("x-request-id"));
  const log = new RequestLog(deps.logger, requestId);
  let res: Response;
  try {
    const id = await deps.auth.fromBearer(req.headers.get("authorization") ?? undefined);
    const admitted = await admitUser(deps, id, log);
    const body = JSON.stringify(await deps.user.profile(id.user));
    // The header set of the Hono route: request id, the rate-limit headers, the JSON type.
    const headers: Record<string, string> = { "X-Request-Id": requestId };
    for (const k in admitted.headers) headers[k] = admitted.headers[k] as string;
    headers["Content-Type"] = "application/json";
    res = new Response(body, { status: 200, headers });
  } catch (err) {
    res = errorResponse(err, requestId, log, deps.logger);
  }
  log.accessSince("GET", HOT_PATH, res.status, started);
  return res;
}

/** The app's error handler for this route's errors (AppError or unexpected), without Hono. */
function errorResponse(err: unknown, requestId: string, log: RequestLog, root: Logger): Response {
  const headers: Record<string, string> = { "X-Request-Id": requestId };
  let status = 500;
  let body: unknown = { detail: "Internal server error" };
  if (err instanceof AppError) {
    const problem = appErrorProblem(err);
    Object.assign(headers, problem.headers);
    status = problem.status;
    body = problem.body;
  } else {
    (log.logger ?? root).error({ err }, "unhandled error");
  }
  headers["Content-Type"] = "application/json";
  return new Response(JSON.stringify(body), { status, headers });
}
