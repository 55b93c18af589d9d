/**
 * The ingest runner against a real local HTTP server serving the shared samples: conditional
 * GETs (304 on If-None-Match / If-Modified-Since), backoff on 5xx and Retry-After, bounded
 * concurrency, and the lease that keeps two instances from polling one feed twice. The clock
 * is injected, so schedules are exact and no test waits on timers.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import pino from "pino";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { HttpFeedReader, NEWS_MIGRATIONS, SqlFeedStateStore, SqlNewsStore } from "../../adapters/news/index.ts";
import { SqliteClient } from "../../adapters/sql/index.ts";
import type { FeedSpec, NewsStore } from "../../domain/news/ports.ts";
import type { Article } from "../../domain/news/types.ts";
import type { ControlPlaneStore } from "../../domain/ports.ts";
import { sharedData } from "../../test/shared-data.ts";
import { createCompanyLinker } from "./companies.ts";
import { NewsIngestor } from "./ingest.ts";
import { DEFAULT_POLLER, NewsPoller, type PollerOptions } from "./poller.ts";

const news = sharedData("news", "news poller");
const linker = createCompanyLinker();
const logger = pino({ level: "silent" });
const OPTS: PollerOptions = {
  ...DEFAULT_POLLER,
  intervalMs: 60_000,
  backoffBaseMs: 1_000,
  backoffMaxMs: 30_000,
  concurrency: 4,
};

interface Hit {
  path: string;
  inm: string | null;
  ims: string | null;
}

describe.skipIf(!news)("NewsPoller", () => {
  let server: Server<undefined>;
  let base: string;
  let hits: Hit[];
  let flaky: number;
  let active = 0;
  let maxActive = 0;
  const file = (rel: string) => readFileSync(join(news ?? "", rel));
  const LM = "Fri, 12 Dec 2025 23:03:31 GMT";

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const path = new URL(req.url).pathname;
        const inm = req.headers.get("if-none-match");
        const ims = req.headers.get("if-modified-since");
        hits.push({ path, inm, ims });
        switch (path) {
          case "/nasdaq":
            if (inm === '"nasdaq-1"') return new Response(null, { status: 304 });
            return new Response(file("feed_items/nasdaq_aapl_feed.json"), { headers: { etag: '"nasdaq-1"' } });
          case "/sec":
            if (ims === LM) return new Response(null, { status: 304 });
            return new Response(file("feeds/sec_edgar_latest_filings_atom_2025-12-12.xml"), {
              headers: { "last-modified": LM, "content-type": "application/atom+xml" },
            });
          case "/gdelt":
            return new Response(file("gdelt/gdelt2_mentions_sample.csv"), { headers: { etag: '"g"' } });
          case "/flaky":
            flaky++;
            return flaky <= 2
              ? new Response("upstream down", { status: 503 })
              : new Response(file("feed_items/cnbc_top_news.json"), { headers: { etag: '"cnbc"' } });
          case "/limited":
            return new Response("slow down", { status: 429, headers: { "retry-after": "20" } });
          default: {
            // /slow/N: holds the response to measure how many reads overlap.
            active++;
            maxActive = Math.max(maxActive, active);
            await Bun.sleep(30);
            active--;
            return new Response("[]");
          }
        }
      },
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop(true));

  let dir: string;
  let cp: ControlPlaneStore;
  let store: NewsStore;
  let published: Article[];
  let now: Date;

  beforeEach(async () => {
    hits = [];
    flaky = 0;
    maxActive = 0;
    published = [];
    now = new Date("2024-01-01T00:00:00Z");
    dir = mkdtempSync(join(tmpdir(), "cairn-poller-"));
    cp = new SqlControlPlaneStore(new SqliteClient(join(dir, "cp.sqlite")));
    await cp.migrate(NEWS_MIGRATIONS);
    store = new SqlNewsStore(cp.sql);
  });
  afterEach(async () => {
    await cp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const poller = (feeds: FeedSpec[], opts: Partial<PollerOptions> = {}, newsStore: NewsStore = store) =>
    new NewsPoller(
      feeds,
      {
        reader: new HttpFeedReader({ timeoutMs: 5_000, maxBytes: 5 * 1024 * 1024 }),
        state: new SqlFeedStateStore(cp.sql),
        ingestor: new NewsIngestor({
          store: newsStore,
          linker,
          logger,
          now: () => now,
          publisher: { publish: async (a) => void published.push(a) },
        }),
        logger,
        now: () => now,
      },
      { ...OPTS, ...opts },
    );
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };

  test("ingests the real samples, then polls with validators and gets 304s (nothing re-published)", async () => {
    const p = poller([
      { type: "rss", url: `${base}/nasdaq` },
      { type: "rss", url: `${base}/sec` },
      { type: "gdelt", url: `${base}/gdelt` },
    ]);
    const first = await p.tick();
    expect(first.map((r) => r.kind)).toEqual(["ingested", "ingested", "ingested"]);
    const stored = published.length;
    expect(stored).toBeGreaterThan(300);
    expect((await store.list({ limit: 200, source_types: ["gdelt"] })).articles.length).toBeGreaterThan(100);

    // Not due yet: no request at all.
    advance(OPTS.intervalMs - 1);
    expect(await p.tick()).toEqual([]);
    expect(hits).toHaveLength(3);

    advance(1);
    const second = await p.tick();
    const byFeed = Object.fromEntries(second.map((r) => [r.feed, r.kind]));
    expect(byFeed[`rss:${base}/nasdaq`]).toBe("not_modified");
    expect(byFeed[`rss:${base}/sec`]).toBe("not_modified");
    // GDELT's body came back in full (its server ignores validators): all duplicates.
    expect(byFeed[`gdelt:${base}/gdelt`]).toBe("ingested");
    expect(hits.find((h) => h.path === "/nasdaq" && h.inm === '"nasdaq-1"')).toBeDefined();
    expect(hits.find((h) => h.path === "/sec" && h.ims === LM)).toBeDefined();
    expect(published).toHaveLength(stored);
    await p.close();
  });

  test("backs off exponentially on 5xx, then recovers and resets the failure count", async () => {
    const p = poller([{ type: "rss", url: `${base}/flaky` }]);
    const t0 = now.getTime();
    expect(await p.tick()).toMatchObject([
      { kind: "failed", failures: 1, nextPollAt: new Date(t0 + 1_000).toISOString() },
    ]);
    advance(999);
    expect(await p.tick()).toEqual([]);
    advance(1);
    expect(await p.tick()).toMatchObject([
      { kind: "failed", failures: 2, nextPollAt: new Date(t0 + 3_000).toISOString() },
    ]);
    advance(2_000);
    expect(await p.tick()).toMatchObject([{ kind: "ingested", stats: { stored: 30 } }]);
    const state = await new SqlFeedStateStore(cp.sql).get(`rss:${base}/flaky`);
    expect(state).toMatchObject({ failures: 0, etag: '"cnbc"', last_status: 200, last_error: null });
    expect(hits.filter((h) => h.path === "/flaky")).toHaveLength(3);
    await p.close();
  });

  test("Retry-After on 429 is honoured when longer than the backoff", async () => {
    const p = poller([{ type: "rss", url: `${base}/limited` }]);
    const [r] = await p.tick();
    expect(r).toMatchObject({
      kind: "failed",
      failures: 1,
      nextPollAt: new Date(now.getTime() + 20_000).toISOString(),
    });
    await p.close();
  });

  test("at most `concurrency` reads run at once, and a freed slot takes the next due feed", async () => {
    const feeds = Array.from({ length: 6 }, (_, i) => ({ type: "rss" as const, url: `${base}/slow/${i}` }));
    const p = poller(feeds, { concurrency: 2 });
    const results = await p.tick();
    expect(results).toHaveLength(6);
    expect(maxActive).toBe(2);
    await p.close();
  });

  test("two instances sharing the feed state poll each feed once (lease)", async () => {
    const feeds = [{ type: "rss" as const, url: `${base}/nasdaq` }];
    const a = poller(feeds);
    const b = poller(feeds);
    const [ra, rb] = await Promise.all([a.tick(), b.tick()]);
    expect([...(ra ?? []), ...(rb ?? [])].map((r) => r.kind).sort()).toEqual(["ingested", "skipped"]);
    expect(hits.filter((h) => h.path === "/nasdaq")).toHaveLength(1);
    await Promise.all([a.close(), b.close()]);
  });

  test("when storing fails, the validators are not saved: the next poll reads the body again", async () => {
    let broken = true;
    const flakyStore: NewsStore = {
      insert: (a) => (broken ? Promise.reject(new Error("database unavailable")) : store.insert(a)),
      get: (id) => store.get(id),
      list: (q) => store.list(q),
      recentTitles: (n) => store.recentTitles(n),
    };
    const p = poller([{ type: "rss", url: `${base}/nasdaq` }], {}, flakyStore);
    expect(await p.tick()).toMatchObject([{ kind: "failed", error: "database unavailable" }]);
    broken = false;
    advance(1_000);
    expect(await p.tick()).toMatchObject([{ kind: "ingested", stats: { stored: 14 } }]);
    expect(hits.filter((h) => h.path === "/nasdaq").map((h) => h.inm)).toEqual([null, null]);
    await p.close();
  });

  test("start() polls on a timer; close() stops it and waits for the running poll", async () => {
    const p = poller([{ type: "rss", url: `${base}/slow/x` }], { tickMs: 10 });
    p.start();
    await Bun.sleep(5);
    await p.close();
    const count = hits.length;
    expect(count).toBe(1);
    await Bun.sleep(40);
    expect(hits.length).toBe(count);
  });
});
