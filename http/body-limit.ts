/**
 * Request body guards that run before any route reads a byte: a size limit on every route
 * (Content-Length first; a chunked body is counted while it streams and refused past the
 * limit) and the refusal of encoded bodies. Routes that take large bodies are named in one
 * table; the multipart upload enforces its own 50 MB limit, declared and streamed
 * (routes/documents), so it is exempt here: never buffered, never counted twice.
 */
import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono/types";
import { AppError } from "../domain/errors.ts";
import type { AppEnv } from "./context.ts";
import { MAX_DOC_BODY_BYTES, MAX_YJS_BODY_BYTES } from "./routes/editor/common.ts";

/** Every JSON route takes at most this much unless the table below says otherwise. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

interface RouteLimit {
  method: string;
  path: RegExp;
  /** null: the route reads the raw stream and enforces its own limit (413 included). */
  maxBytes: number | null;
  /**
   * The route counts a chunked body itself, after authenticating (editor's own bodyLimit):
   * here only a declared Content-Length is checked, so nobody gets megabytes buffered
   * before auth.
   */
  declaredOnly?: boolean;
}

export const ROUTE_BODY_LIMITS: readonly RouteLimit[] = [
  { method: "POST", path: /^\/v1\/documents\/upload\/?$/, maxBytes: null },
  // Enforces CAIRN_FOUNDRY_UPLOAD_MAX_BYTES itself (multipart and JSON), 413 before reading past it.
  { method: "POST", path: /^\/v1\/foundry\/tables\/?$/, maxBytes: null },
  {
    method: "PUT",
    path: /^\/v1\/editor\/documents\/[^/]+\/yjs\/?$/,
    maxBytes: MAX_YJS_BODY_BYTES,
    declaredOnly: true,
  },
  { method: "POST", path: /^\/v1\/editor\/documents\/?$/, maxBytes: MAX_DOC_BODY_BYTES, declaredOnly: true },
  { method: "PATCH", path: /^\/v1\/editor\/documents\/[^/]+\/?$/, maxBytes: MAX_DOC_BODY_BYTES, declaredOnly: true },
];

/** The limit for one request: the table's entry, else the default. */
export function bodyLimitFor(method: string, path: string): number | null {
  return routeLimit(method, path).maxBytes;
}

function routeLimit(method: string, path: string): RouteLimit | { maxBytes: number; declaredOnly?: undefined } {
  return ROUTE_BODY_LIMITS.find((r) => r.method === method && r.path.test(path)) ?? { maxBytes: DEFAULT_BODY_LIMIT };
}

const tooLarge = (maxSize: number) =>
  new AppError("payload_too_large", `The request body exceeds the limit of ${maxSize} bytes for this route`);

const limiters = new Map<number, MiddlewareHandler<AppEnv>>();
function limiter(maxSize: number): MiddlewareHandler<AppEnv> {
  let mw = limiters.get(maxSize);
  if (!mw) {
    mw = bodyLimit({
      maxSize,
      onError: () => {
        throw new AppError(
          "payload_too_large",
          `The request body exceeds the limit of ${maxSize} bytes for this route`,
        );
      },
    });
    limiters.set(maxSize, mw);
  }
  return mw;
}

/**
 * Compressed request bodies are refused (415) rather than inflated: no client of this API
 * sends them, and inflating would need a second, decompressed-size budget (zip bombs).
 */
export const refuseEncodedBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
  const encoding = c.req.header("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    throw new AppError(
      "unsupported_media_type",
      "Content-Encoding on request bodies is not supported; send the body uncompressed",
    );
  }
  await next();
};

/** The size limit of the matching route, checked before the handler (or auth) runs. */
export const limitBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { maxBytes, declaredOnly } = routeLimit(c.req.method, c.req.path);
  if (maxBytes === null) return next();
  if (!declaredOnly) return limiter(maxBytes)(c, next);
  const declared = Number(c.req.header("content-length") ?? 0);
  if (!c.req.header("transfer-encoding") && declared > maxBytes) throw tooLarge(maxBytes);
  return next();
};
