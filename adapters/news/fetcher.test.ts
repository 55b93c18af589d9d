/** Conditional GET against a real local server (Bun.serve on a free port). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { conditionalGet, FeedFetchError, parseRetryAfter } from "./fetcher.ts";

const OPTS = { timeoutMs: 2_000, maxBytes: 64 * 1024 };

describe("conditionalGet", () => {
  let server: Server<undefined>;
  let base: string;
  const seen: Record<string, string | null>[] = [];

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const path = new URL(req.url).pathname;
        seen.push({
          path,
          inm: req.headers.get("if-none-match"),
          ims: req.headers.get("if-modified-since"),
          ua: req.headers.get("user-agent"),
          auth: req.headers.get("authorization"),
        });
        if (path === "/etag") {
          if (req.headers.get("if-none-match") === '"v1"') return new Response(null, { status: 304 });
          return new Response("<rss/>", { headers: { etag: '"v1"', "content-type": "application/rss+xml" } });
        }
        if (path === "/lm") {
          const lm = "Wed, 26 Aug 2020 21:49:00 GMT";
          if (req.headers.get("if-modified-since") === lm) return new Response(null, { status: 304 });
          return new Response("[]", { headers: { "last-modified": lm } });
        }
        if (path === "/latin1") {
          const bytes = new Uint8Array([
            ...new TextEncoder().encode("<?xml version='1.0' encoding='ISO-8859-1'?><t>"),
            0xe9,
            ...new TextEncoder().encode("</t>"),
          ]);
          return new Response(bytes, { headers: { "content-type": "application/atom+xml" } });
        }
        if (path === "/busy") return new Response("busy", { status: 503, headers: { "retry-after": "7" } });
        if (path === "/gone") return new Response("gone", { status: 404 });
        if (path === "/big") return new Response("x".repeat(OPTS.maxBytes + 1));
        if (path === "/slow") return Bun.sleep(500).then(() => new Response("late"));
        return new Response("?", { status: 500 });
      },
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop(true));

  test("sends If-None-Match from the previous ETag and reports 304 with the validators kept", async () => {
    const first = await conditionalGet(`${base}/etag`, { etag: null, lastModified: null }, OPTS);
    expect(first).toMatchObject({ kind: "ok", status: 200, body: "<rss/>", etag: '"v1"' });
    const second = await conditionalGet(`${base}/etag`, { etag: first.etag, lastModified: first.lastModified }, OPTS);
    expect(second).toEqual({ kind: "not_modified", status: 304, etag: '"v1"', lastModified: null });
    expect(seen.filter((s) => s.path === "/etag").map((s) => s.inm)).toEqual([null, '"v1"']);
  });

  test("sends If-Modified-Since from the previous Last-Modified", async () => {
    const first = await conditionalGet(`${base}/lm`, { etag: null, lastModified: null }, OPTS);
    expect(first.kind).toBe("ok");
    const second = await conditionalGet(`${base}/lm`, { etag: null, lastModified: first.lastModified }, OPTS);
    expect(second.kind).toBe("not_modified");
  });

  test("decodes by the XML prolog's encoding when the header names none", async () => {
    const res = await conditionalGet(`${base}/latin1`, { etag: null, lastModified: null }, OPTS);
    expect(res.kind === "ok" && res.body.endsWith("<t>é</t>")).toBe(true);
  });

  test("5xx is retryable and carries Retry-After; 404 is not retryable", async () => {
    const busy = await conditionalGet(`${base}/busy`, { etag: null, lastModified: null }, OPTS).catch((e) => e);
    expect(busy).toBeInstanceOf(FeedFetchError);
    expect(busy).toMatchObject({ status: 503, retryable: true, retryAfterMs: 7_000 });
    const gone = await conditionalGet(`${base}/gone`, { etag: null, lastModified: null }, OPTS).catch((e) => e);
    expect(gone).toMatchObject({ status: 404, retryable: false });
  });

  test("bodies over the byte limit and slow servers fail instead of piling up", async () => {
    const big = await conditionalGet(`${base}/big`, { etag: null, lastModified: null }, OPTS).catch((e) => e);
    expect(big).toMatchObject({ retryable: false });
    expect(String(big.message)).toContain("limit");
    const slow = await conditionalGet(
      `${base}/slow`,
      { etag: null, lastModified: null },
      { ...OPTS, timeoutMs: 50 },
    ).catch((e) => e);
    expect(slow).toMatchObject({ status: null, retryable: true });
  });

  test("extra headers (X bearer token) are sent; a User-Agent always is", async () => {
    await conditionalGet(
      `${base}/etag`,
      { etag: null, lastModified: null },
      { ...OPTS, headers: { authorization: "Bearer t0k" } },
    );
    const last = seen.at(-1);
    expect(last?.auth).toBe("Bearer t0k");
    expect(last?.ua).toContain("cairn-news");
  });

  test("Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("120")).toBe(120_000);
    const now = Date.parse("2020-08-26T21:49:00Z");
    expect(parseRetryAfter("Wed, 26 Aug 2020 21:50:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("soon")).toBeNull();
  });
});
