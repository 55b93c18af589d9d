/**
 * The composition: with CAIRN_NEWS_FEEDS set, main.ts starts the poller, which reads a local
 * server serving a real sample, stores the articles (GET /v1/news) and publishes each to the
 * news hub (the stream's NewsPublisher). Without the variable no poller runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { startTestService, type TestService } from "../harness.ts";
import { sharedData } from "../shared-data.ts";
import { waitFor } from "../wait.ts";

const news = sharedData("news", "news ingest e2e");

describe.skipIf(!news)("news ingest runner in the service", () => {
  let feed: Server<undefined>;
  let requests = 0;
  let svc: TestService;
  let key: string;

  beforeAll(async () => {
    const body = readFileSync(join(news ?? "", "feed_items/nasdaq_aapl_feed.json"));
    feed = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => {
        requests++;
        return new Response(body, { headers: { etag: '"1"' } });
      },
    });
    svc = await startTestService({
      CAIRN_NEWS_FEEDS: `rss:http://127.0.0.1:${feed.port}/nasdaq.json`,
      CAIRN_NEWS_POLL_MS: "60000",
    });
    key = await svc.apiKey("ingest@example.com", "enterprise");
  });
  afterAll(async () => {
    await svc.close();
    feed.stop(true);
  });

  test("polls the configured feed, stores and publishes its articles", async () => {
    const list = async () =>
      (await (await svc.request("/v1/news?limit=200", { headers: { "x-api-key": key } })).json()) as {
        articles: { article_id: string; company_tickers: string }[];
      };
    await waitFor("the poller to store the feed", async () => (await list()).articles.length === 14, {
      timeoutMs: 10_000,
    });
    const { articles } = await list();
    expect(requests).toBe(1);
    expect(articles.some((a) => JSON.parse(a.company_tickers).includes("AAPL"))).toBe(true);
    const hub = svc.service.newsHub;
    expect(articles.every((a) => hub.has(a.article_id))).toBe(true);
  });

  test("no feeds configured, no poller: the service starts and history is empty", async () => {
    const plain = await startTestService();
    try {
      const k = await plain.apiKey("plain@example.com", "enterprise");
      const res = await plain.request("/v1/news", { headers: { "x-api-key": k } });
      expect(await res.json()).toEqual({ articles: [], next_cursor: null });
    } finally {
      await plain.close();
    }
  });
});

describe.skipIf(!news)("bun run cli ingest-news", () => {
  test("ingests the sample folder into the control plane, and a second run stores nothing new", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cairn-cli-news-"));
    const run = async () => {
      const proc = Bun.spawn([process.execPath, "cli/index.ts", "ingest-news", "--dir", news ?? ""], {
        cwd: join(import.meta.dir, "..", ".."),
        env: { ...process.env, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "silent" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      expect(code).toBe(0);
      return JSON.parse(out) as { stored: number; files: { file: string; type: string | null }[] };
    };
    try {
      const first = await run();
      expect(first.stored).toBeGreaterThan(1400);
      const types = Object.fromEntries(first.files.map((f) => [f.file, f.type]));
      expect(types["feeds/sec_edgar_latest_filings_atom_2025-12-12.xml"]).toBe("rss");
      expect(types["gdelt/gdelt2_mentions_sample.csv"]).toBe("gdelt");
      expect(types["social/reddit_wallstreetbets_posts_2022-01.csv"]).toBe("reddit");
      expect(types["sentiment/financial_phrasebank_all-data.csv"]).toBeNull();
      expect((await run()).stored).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
