/**
 * News end to end with real parts: the poller reads a real sample feed from a local HTTP
 * server, enriches and stores the articles, publishes them to a live WebSocket subscriber
 * whose filter they match, and the same objects are served by GET /v1/news/{article_id}.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { startTestService, type TestService } from "../harness.ts";
import { NewsClient } from "../news-client.ts";
import { type Served, serve } from "../serve.ts";
import { sharedData } from "../shared-data.ts";
import { waitFor } from "../wait.ts";

const news = sharedData("news", "news end-to-end");

describe.skipIf(!news)("poll -> enrich -> store -> stream -> REST", () => {
  let feed: Server<undefined>;
  let live = false;
  let svc: TestService;
  let served: Served;
  let key: string;

  beforeAll(async () => {
    const body = readFileSync(join(news ?? "", "feed_items/nasdaq_aapl_feed.json"));
    // The feed is empty until the subscriber is listening: the stream has no backfill.
    feed = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        live
          ? new Response(body, { headers: { etag: '"2"', "content-type": "application/json" } })
          : new Response("[]", { headers: { etag: '"1"', "content-type": "application/json" } }),
    });
    svc = await startTestService({
      CAIRN_NEWS_FEEDS: `rss:http://127.0.0.1:${feed.port}/nasdaq_aapl.json`,
      CAIRN_NEWS_POLL_MS: "1000",
    });
    served = serve(svc.service);
    key = await svc.apiKey("e2e-news@example.com", "enterprise");
  });
  afterAll(async () => {
    await served.stop();
    await svc.close();
    feed.stop(true);
  });

  test("a subscriber filtering on AAPL receives the enriched articles, exactly as REST serves them", async () => {
    const client = await NewsClient.connect(`${served.wsUrl}/v1/news/stream?apikey=${encodeURIComponent(key)}`);
    expect((await client.next("connected")).message).toBeString();
    expect(await client.setFilter({ tickers: ["AAPL"] })).toEqual({ tickers: ["AAPL"] });
    live = true;

    await waitFor("AAPL articles on the stream", () => client.articles().length > 0, { timeoutMs: 15_000 });
    const frames = client.articles();
    for (const [i, f] of frames.entries()) {
      expect(f.seq).toBe(i + 1);
      expect(f.dropped).toBe(0);
      const wire = f.data;
      // Spec 2.11: every value a string; arrays JSON-encoded; decimals as strings.
      for (const v of Object.values(wire)) expect(typeof v).toBe("string");
      expect(JSON.parse(wire.company_tickers)).toContain("AAPL");
      expect(["bullish", "bearish", "neutral"]).toContain(wire.sentiment_label);
      expect(Number(wire.impact_score)).toBeGreaterThanOrEqual(0);
      expect(Number(wire.impact_score)).toBeLessThanOrEqual(1);
      expect(wire.published_at).toMatch(/[+-]\d{2}:\d{2}$/);

      const rest = await svc.request(`/v1/news/${wire.article_id}`, { headers: { "x-api-key": key } });
      expect(rest.status).toBe(200);
      expect(await rest.json()).toEqual(wire);
    }
    // Stored articles that do not mention AAPL never reached this subscriber.
    const history = (await (await svc.request("/v1/news?limit=200", { headers: { "x-api-key": key } })).json()) as {
      articles: { article_id: string; company_tickers: string }[];
    };
    const aapl = history.articles.filter((a) => JSON.parse(a.company_tickers).includes("AAPL"));
    expect(new Set(frames.map((f) => f.data.article_id))).toEqual(new Set(aapl.map((a) => a.article_id)));
    await client.close();
  }, 30_000);
});
