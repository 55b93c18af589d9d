/**
 * Conditional GET of a feed: sends the validators of the previous poll (If-None-Match,
 * If-Modified-Since) so an unchanged feed costs a 304 and no parsing, reads at most
 * maxBytes, decodes by the declared charset (SEC EDGAR serves ISO-8859-1), and classifies
 * failures so the poller knows whether backing off and retrying makes sense.
 */
import { FeedReadError, type FeedValidators } from "../../domain/news/ports.ts";

export type Validators = FeedValidators;

export type FetchResult =
  | ({ kind: "not_modified"; status: 304 } & Validators)
  | ({ kind: "ok"; status: number; body: string } & Validators);

/** Fetch failures are the domain's FeedReadError, so the poller can back off on them. */
export class FeedFetchError extends FeedReadError {
  override readonly name = "FeedFetchError";
}

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Extra headers (Authorization for the X API, a descriptive User-Agent for Reddit). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export const DEFAULT_USER_AGENT = "cairn-news/1.0 (feed poller)";

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(v: string | null, now = Date.now()): number | null {
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

function charsetOf(contentType: string | null, head: Uint8Array): string {
  const declared = /charset=["']?([\w-]+)/i.exec(contentType ?? "")?.[1];
  if (declared) return declared.toLowerCase();
  // XML declares its encoding in the prolog, which is ASCII-compatible in every encoding we read.
  const prolog = new TextDecoder("latin1").decode(head.subarray(0, 200));
  return /<\?xml[^>]*encoding=["']([\w-]+)["']/i.exec(prolog)?.[1]?.toLowerCase() ?? "utf-8";
}

function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = charsetOf(contentType, bytes);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw new FeedFetchError(`body of ${declared} bytes exceeds the ${maxBytes}-byte limit`, res.status, false);
  }
  if (!res.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new FeedFetchError(`body exceeds the ${maxBytes}-byte limit`, res.status, false);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

export async function conditionalGet(url: string, prev: Validators, opts: FetchOptions): Promise<FetchResult> {
  const headers: Record<string, string> = {
    "user-agent": DEFAULT_USER_AGENT,
    accept: "application/rss+xml, application/atom+xml, application/xml, application/json, text/csv, text/*;q=0.8",
    ...opts.headers,
  };
  if (prev.etag) headers["if-none-match"] = prev.etag;
  if (prev.lastModified) headers["if-modified-since"] = prev.lastModified;
  let res: Response;
  try {
    res = await (opts.fetch ?? fetch)(url, {
      headers,
      signal: AbortSignal.timeout(opts.timeoutMs),
      redirect: "follow",
    });
  } catch (err) {
    const timeout = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    throw new FeedFetchError(timeout ? `timed out after ${opts.timeoutMs} ms` : String(err), null, true);
  }
  const etag = res.headers.get("etag");
  const lastModified = res.headers.get("last-modified");
  if (res.status === 304) {
    await res.body?.cancel();
    // A 304 may omit the validators; keep the ones that produced it.
    return {
      kind: "not_modified",
      status: 304,
      etag: etag ?? prev.etag,
      lastModified: lastModified ?? prev.lastModified,
    };
  }
  if (!res.ok) {
    await res.body?.cancel();
    const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
    throw new FeedFetchError(
      `HTTP ${res.status}`,
      res.status,
      retryable,
      parseRetryAfter(res.headers.get("retry-after")),
    );
  }
  const bytes = await readCapped(res, opts.maxBytes);
  return { kind: "ok", status: res.status, body: decode(bytes, res.headers.get("content-type")), etag, lastModified };
}
