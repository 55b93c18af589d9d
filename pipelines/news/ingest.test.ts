/** Enrichment of real items and the ingest step (dedup, store, publish) on a real SQLite store. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { NEWS_MIGRATIONS, parseSource, SqlNewsStore } from "../../adapters/news/index.ts";
import { SqliteClient } from "../../adapters/sql/index.ts";
import type { RawNewsItem } from "../../domain/news/ports.ts";
import { type Article, toWire } from "../../domain/news/types.ts";
import type { ControlPlaneStore } from "../../domain/ports.ts";
import { sharedData } from "../../test/shared-data.ts";
import { createCompanyLinker } from "./companies.ts";
import { enrich } from "./enrich.ts";
import { NewsIngestor } from "./ingest.ts";

const news = sharedData("news", "news ingest");
const linker = createCompanyLinker();
const logger = pino({ level: "silent" });
const AT = new Date("2024-01-02T03:04:05.678Z");

function nasdaqItems(): RawNewsItem[] {
  return parseSource("rss", readFileSync(join(news ?? "", "feed_items/nasdaq_aapl_feed.json"), "utf8"), {
    url: "https://www.nasdaq.com/feed/rssoutbound?symbol=AAPL",
  });
}

describe.skipIf(!news)("enrich", () => {
  test("a real Nasdaq item: tickers from the publisher and the text, categories, wire encoding", () => {
    const item = nasdaqItems().find((i) => i.title.startsWith("Splits, Shorts")) as RawNewsItem;
    const a = enrich(item, "nasdaq.com/articles/splits", AT, linker);
    expect(a.company_tickers).toEqual(["GS", "AAPL", "AMZN", "TSLA", "SKT"]);
    expect(a.categories).toContain("markets");
    expect(a.published_at).toBe("2020-08-26T21:15:00+00:00");
    expect(a.ingested_at).toBe(AT.toISOString());
    expect(a.snippet.length).toBeLessThanOrEqual(240);
    const wire = toWire(a);
    expect(JSON.parse(wire.company_tickers)).toEqual(a.company_tickers);
    expect(JSON.parse(wire.categories)).toEqual(a.categories);
    expect(typeof wire.sentiment_score).toBe("string");
    expect(Number(wire.impact_score)).toBeGreaterThanOrEqual(0);
    expect(Number(wire.impact_score)).toBeLessThanOrEqual(1);
    expect(["low", "medium", "high"]).toContain(wire.impact_label);
    // Deterministic: the same item gives the same article.
    expect(enrich(item, "nasdaq.com/articles/splits", AT, linker)).toEqual(a);
  });

  test("no published date, or one far in the future, falls back to the ingest time", () => {
    const base: RawNewsItem = {
      source_type: "rss",
      source_name: "X",
      url: "https://x.com/a",
      title: "Apple rises",
      body: "",
      published_at: null,
    };
    expect(enrich(base, "x.com/a", AT, linker).published_at).toBe("2024-01-02T03:04:05+00:00");
    expect(enrich({ ...base, published_at: "2030-01-01T00:00:00Z" }, "x.com/a", AT, linker).published_at).toBe(
      "2024-01-02T03:04:05+00:00",
    );
  });

  test("GDELT tone tips a headline without lexicon evidence", () => {
    const item: RawNewsItem = {
      source_type: "gdelt",
      source_name: "x",
      url: "https://x.com/b",
      title: "Gabinete binacional se reunira en Lima",
      body: "",
      published_at: null,
    };
    expect(enrich(item, "x.com/b", AT, linker).sentiment_label).toBe("neutral");
    expect(enrich({ ...item, hints: { tone: -6 } }, "x.com/b", AT, linker).sentiment_label).toBe("bearish");
  });
});

describe.skipIf(!news)("NewsIngestor", () => {
  let dir: string;
  let cp: ControlPlaneStore;
  let store: SqlNewsStore;
  let published: Article[];
  let failPublish: boolean;
  const make = () =>
    new NewsIngestor({
      store,
      linker,
      logger,
      now: () => AT,
      publisher: {
        publish: async (a) => {
          if (failPublish) throw new Error("hub down");
          published.push(a);
        },
      },
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-ingest-"));
    cp = new SqlControlPlaneStore(new SqliteClient(join(dir, "cp.sqlite")));
    await cp.migrate(NEWS_MIGRATIONS);
    store = new SqlNewsStore(cp.sql);
    published = [];
    failPublish = false;
  });
  afterEach(async () => {
    await cp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("stores and publishes each new article once; a second run finds only duplicates", async () => {
    const ingestor = make();
    const first = await ingestor.ingest(nasdaqItems());
    expect(first).toMatchObject({ received: 15, stored: 14, duplicate_title: 1, duplicate_url: 0, invalid: 0 });
    expect(published).toHaveLength(14);
    expect(published[0]).not.toHaveProperty("canonical_url");
    const again = await make().ingest(nasdaqItems());
    expect(again).toMatchObject({ stored: 0 });
    expect(again.duplicate_url + again.duplicate_title).toBe(15);
    expect(published).toHaveLength(14);
  });

  test("tracking parameters and http/https variants are one article; near-identical headlines too", async () => {
    const item: RawNewsItem = {
      source_type: "rss",
      source_name: "Yahoo Finance",
      url: "https://finance.yahoo.com/news/trump-signs-tiktok-ban-u-012553901.html?.tsrc=rss",
      title: "Trump signs TikTok ban in U.S. as deadline looms",
      body: "",
      published_at: "2020-08-07T04:18:13+00:00",
    };
    const stats = await make().ingest([
      item,
      { ...item, url: "http://www.finance.yahoo.com/news/trump-signs-tiktok-ban-u-012553901.html?utm_source=tw" },
      {
        ...item,
        url: "https://www.reuters.com/article/tiktok-ban",
        title: "Trump signs TikTok ban in U.S. as deadline looms - Reuters",
      },
      { ...item, url: "https://x.com/other", title: "TikTok owner ByteDance sues" },
    ]);
    expect(stats).toMatchObject({ received: 4, stored: 2, duplicate_url: 1, duplicate_title: 1 });
  });

  test("headlines stored earlier are remembered after a restart (warm from the store)", async () => {
    const item: RawNewsItem = {
      source_type: "rss",
      source_name: "A",
      url: "https://a.com/1",
      title: "Nvidia agrees to buy Arm for $40 billion",
      body: "",
      published_at: "2020-09-13T22:00:00+00:00",
    };
    await make().ingest([item]);
    const stats = await make().ingest([
      { ...item, url: "https://b.com/2", title: "Nvidia agrees to buy Arm for $40 billion - CNBC" },
    ]);
    expect(stats).toMatchObject({ stored: 0, duplicate_title: 1 });
  });

  test("a failed publish is counted, and the article stays stored", async () => {
    failPublish = true;
    const stats = await make().ingest(nasdaqItems().slice(0, 2));
    expect(stats).toMatchObject({ stored: 2, publish_failed: 2 });
    expect((await store.list({ limit: 10 })).articles).toHaveLength(2);
  });

  test("items without a usable URL or title are rejected", async () => {
    const bad: RawNewsItem = {
      source_type: "rss",
      source_name: "A",
      url: "ftp://a/b",
      title: "x",
      body: "",
      published_at: null,
    };
    expect(await make().ingest([bad, { ...bad, url: "https://a.com/c", title: "  " }])).toMatchObject({
      invalid: 2,
      stored: 0,
    });
  });
});
