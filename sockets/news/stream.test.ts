/**
 * The news stream end to end: a real service behind Bun.serve on a free port, real
 * WebSocket clients, articles published through the hub as the ingest pipeline does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { toWire } from "../../domain/news/types.ts";
import { startTestService, type TestService } from "../../test/harness.ts";
import { NewsClient } from "../../test/news-client.ts";
import { makeArticle } from "../../test/news-fixtures.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

let svc: TestService;
let http: Served;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  http = serve(svc.service);
  key = await svc.apiKey("stream@example.com", "enterprise");
});
afterAll(async () => {
  await http.stop();
  await svc.close();
});

const hub = () => svc.service.newsHub;
const streamUrl = (query = "") => `${http.wsUrl}/v1/news/stream${query}`;
const connect = async () => {
  const c = await NewsClient.connect(streamUrl(), { "x-api-key": key });
  await c.next("connected");
  return c;
};
/** The raw handshake as fetch sees it, to read the refusal's status and body. */
const handshake = (query: string, headers: Record<string, string> = {}) =>
  fetch(`${http.url}/v1/news/stream${query}`, {
    headers: {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": btoa("0123456789abcdef"),
      ...headers,
    },
  });

describe("news stream: the handshake", () => {
  test("an API key in the X-API-Key header connects, and the server speaks first", async () => {
    const c = await NewsClient.connect(streamUrl(), { "x-api-key": key });
    const hello = await c.next();
    expect(hello.type).toBe("connected");
    expect(hello.type === "connected" && hello.message.length > 0).toBe(true);
    await c.close();
  });

  test("an API key as ?apikey= connects too", async () => {
    const c = await NewsClient.connect(streamUrl(`?apikey=${encodeURIComponent(key)}`));
    expect((await c.next()).type).toBe("connected");
    await c.close();
  });

  test("a wrong or missing key is refused with 401 before any upgrade", async () => {
    const bad = await handshake("?apikey=cairn_00000000_nope");
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { detail: string }).detail).toBe("Invalid API key");
    expect((await handshake("")).status).toBe(401);
    expect(NewsClient.connect(streamUrl(), { "x-api-key": "wrong" })).rejects.toThrow(/handshake/);
  });

  test("a tenant that is not active is refused with 403", async () => {
    const other = await startTestService();
    const served = serve(other.service);
    try {
      const k = await other.apiKey("inactive@example.com");
      await other.service.store.updateTenant(other.tenantId, { is_active: false });
      await other.service.deps.tenantResolver.invalidate(other.tenantId);
      const res = await fetch(`${served.url}/v1/news/stream?apikey=${encodeURIComponent(k)}`, {
        headers: { upgrade: "websocket", connection: "Upgrade" },
      });
      expect(res.status).toBe(403);
    } finally {
      await served.stop();
      await other.close();
    }
  });

  test("the connect counts against the account's rate limit (free: 5 per minute, then 429)", async () => {
    const free = await svc.apiKey("free-stream@example.com", "free");
    const clients: NewsClient[] = [];
    for (let i = 0; i < 5; i++) clients.push(await NewsClient.connect(streamUrl(), { "x-api-key": free }));
    const refused = await handshake("", { "x-api-key": free });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    for (const c of clients) await c.close();
  });

  test("a plain GET with a valid key is 426: the endpoint speaks WebSocket only", async () => {
    const res = await fetch(`${http.url}/v1/news/stream`, { headers: { "x-api-key": key } });
    expect(res.status).toBe(426);
    expect(res.headers.get("upgrade")).toBe("websocket");
  });
});

describe("news stream: filters and delivery", () => {
  test("filter_applied echoes the normalised filter; only matching articles follow, as published", async () => {
    const c = await connect();
    const applied = await c.setFilter({ tickers: ["aapl", "AAPL", " tsla"], min_impact: 0.5, sentiment: "Bullish" });
    expect(applied).toEqual({ tickers: ["AAPL", "TSLA"], sentiment: "bullish", min_impact: 0.5 });
    const hit = makeArticle({ company_tickers: ["AAPL"], impact_score: 0.9 });
    const lowImpact = makeArticle({ company_tickers: ["AAPL"], impact_score: 0.2 });
    const otherTicker = makeArticle({ company_tickers: ["MSFT"], impact_score: 0.9 });
    const bearish = makeArticle({ company_tickers: ["TSLA"], sentiment_label: "bearish" });
    const hit2 = makeArticle({ company_tickers: ["MSFT", "TSLA"], impact_score: 0.5 });
    for (const a of [hit, lowImpact, otherTicker, bearish, hit2]) await hub().publish(a);
    const first = await c.next("article");
    expect(first).toEqual({ type: "article", seq: 1, dropped: 0, data: toWire(hit) });
    const second = await c.next("article");
    expect(second.seq).toBe(2);
    expect(second.data.article_id).toBe(hit2.article_id);
    // Wire shape (spec 2.11): arrays and decimals travel as strings.
    expect(second.data.company_tickers).toBe('["MSFT","TSLA"]');
    expect(second.data.impact_score).toBe("0.5");
    await hub().publish(makeArticle({ title: "fence", company_tickers: ["AAPL"], impact_score: 1 }));
    expect((await c.next("article")).data.title).toBe("fence");
    expect(c.articles()).toHaveLength(3);
    await c.close();
  });

  test("no filter, or an empty one, delivers everything; nothing published before connecting is replayed", async () => {
    const before = makeArticle({ title: "before connect" });
    await hub().publish(before);
    const c = await connect();
    const a = makeArticle({ company_tickers: [], categories: [], country_codes: [] });
    await hub().publish(a);
    expect((await c.next("article")).data.article_id).toBe(a.article_id);
    expect(await c.setFilter({ tickers: [], categories: null })).toEqual({});
    const b = makeArticle({ source_type: "reddit" });
    await hub().publish(b);
    expect((await c.next("article")).data.article_id).toBe(b.article_id);
    expect(c.articles().map((f) => f.data.article_id)).not.toContain(before.article_id);
    await c.close();
  });

  test("malformed JSON gets an error with the parse error text, and the connection stays usable", async () => {
    const c = await connect();
    c.send("{tickers: [AAPL");
    const err = await c.next("error");
    expect(err.message).toMatch(/JSON/i);
    expect(c.isOpen).toBe(true);
    expect(await c.setFilter({ countries: ["gb"] })).toEqual({ countries: ["GB"] });
    await c.close();
  });

  test("invalid filter values get an error naming the problem, and the previous filter stays", async () => {
    const c = await connect();
    await c.setFilter({ categories: ["earnings"] });
    c.send({ min_impact: 2 });
    expect((await c.next("error")).message).toBe("invalid filter: min_impact must be a number from 0.0 to 1.0 (got 2)");
    c.send({ sentiment: "euphoric" });
    expect((await c.next("error")).message).toMatch(/sentiment must be one of bullish, bearish, neutral/);
    c.send({ ticker: ["AAPL"] });
    expect((await c.next("error")).message).toMatch(/unknown filter field\(s\): ticker/);
    const earnings = makeArticle({ categories: ["earnings"], impact_score: 0.1 });
    await hub().publish(makeArticle({ categories: ["crypto"] }));
    await hub().publish(earnings);
    expect((await c.next("article")).data.article_id).toBe(earnings.article_id);
    expect(c.articles()).toHaveLength(1);
    expect(c.isOpen).toBe(true);
    await c.close();
  });

  test("binary frames are answered with an error", async () => {
    const c = await connect();
    c.send(new Uint8Array([123, 125]));
    expect((await c.next("error")).message).toMatch(/binary frames/);
    await c.close();
  });

  test("a new filter replaces the old one", async () => {
    const c = await connect();
    await c.setFilter({ tickers: ["AAPL"] });
    const apple = makeArticle({ company_tickers: ["AAPL"] });
    await hub().publish(apple);
    expect((await c.next("article")).data.article_id).toBe(apple.article_id);
    await c.setFilter({ source_types: ["twitter"], countries: ["JP"] });
    const appleAgain = makeArticle({ company_tickers: ["AAPL"] });
    const tweetJp = makeArticle({ company_tickers: [], source_type: "twitter", country_codes: ["JP", "US"] });
    const tweetUs = makeArticle({ source_type: "twitter", country_codes: ["US"] });
    for (const a of [appleAgain, tweetUs, tweetJp]) await hub().publish(a);
    const next = await c.next("article");
    expect(next.data.article_id).toBe(tweetJp.article_id);
    expect(next.seq).toBe(2);
    expect(c.articles()).toHaveLength(2);
    await c.close();
  });

  test("the same article published twice is delivered once (the ring dedups by id)", async () => {
    const c = await connect();
    const a = makeArticle();
    await hub().publish(a);
    await hub().publish({ ...a });
    const fence = makeArticle({ title: "fence" });
    await hub().publish(fence);
    await c.next("article");
    expect((await c.next("article")).data.title).toBe("fence");
    expect(hub().has(a.article_id)).toBe(true);
    await c.close();
  });

  test("shutting the service down closes streams with 1001 (going away)", async () => {
    const other = await startTestService();
    const served = serve(other.service);
    try {
      const k = await other.apiKey("shutdown@example.com");
      const c = await NewsClient.connect(`${served.wsUrl}/v1/news/stream?apikey=${encodeURIComponent(k)}`);
      await c.next("connected");
      await other.service.newsHub.close();
      await waitFor("the close", () => c.closed !== null);
      expect(c.closed?.code).toBe(1001);
    } finally {
      await served.stop();
      await other.close();
    }
  });

  test("closing a client removes its subscriber", async () => {
    const before = hub().stats().subscribers;
    const c = await connect();
    expect(hub().stats().subscribers).toBe(before + 1);
    await c.close();
    expect(hub().stats().subscribers).toBe(before);
  });
});
