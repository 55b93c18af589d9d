/**
 * Contract suite for NewsStore and FeedStateStore: runs unchanged on SQLite and Postgres.
 * History filtering is checked against domain/news/types/types.ts `matches` (the stream's semantics)
 * over a seeded random set, so REST history and the live stream can never disagree.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NEWS_MIGRATIONS, SqlFeedStateStore, SqlNewsStore } from "../../adapters/news/index.ts";
import type { FeedStateStore, NewsStore, StoredArticle } from "../../domain/news/ports.ts";
import { type Article, matches, type NewsFilter, SENTIMENT_LABELS, SOURCE_TYPES } from "../../domain/news/types.ts";
import type { ControlPlaneStore } from "../../domain/ports.ts";
import { fuzzSeed, type Prng, prng } from "../prng.ts";

const TICKERS = ["AAPL", "MSFT", "TSLA", "NVDA", "BRK-B"];
const CATEGORIES = ["earnings", "guidance", "mergers_acquisitions", "macro", "markets"];
const COUNTRIES = ["US", "GB", "CN", "DE"];

function some<T>(r: Prng, from: readonly T[]): T[] {
  return from.filter(() => r.bool(0.3));
}

/** A random article; published_at and ingest order are independent on purpose. */
function article(r: Prng, i: number): StoredArticle {
  const id = `00000000-0000-5000-8000-${String(i).padStart(12, "0")}`;
  const day = 1 + r.int(28);
  return {
    article_id: id,
    canonical_url: `example.com/news/${i}`,
    url: `https://example.com/news/${i}?utm_source=x`,
    title: `Headline ${i}`,
    snippet: "Snippet",
    summary: "Summary.",
    source_name: "Example",
    source_type: r.pick(SOURCE_TYPES),
    published_at: `2020-08-${String(day).padStart(2, "0")}T${String(r.int(24)).padStart(2, "0")}:00:00+00:00`,
    categories: some(r, CATEGORIES),
    country_codes: some(r, COUNTRIES),
    company_tickers: some(r, TICKERS),
    company_names: [],
    sentiment_label: r.pick(SENTIMENT_LABELS),
    sentiment_score: Math.round((r.next() * 2 - 1) * 10_000) / 10_000,
    impact_score: Math.round(r.next() * 10_000) / 10_000,
    impact_label: "low",
    ingested_at: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
  };
}

function randomFilter(r: Prng): NewsFilter {
  const f: NewsFilter = {};
  if (r.bool(0.4)) f.tickers = some(r, TICKERS);
  if (r.bool(0.4)) f.categories = some(r, CATEGORIES);
  if (r.bool(0.3)) f.countries = some(r, COUNTRIES);
  if (r.bool(0.3)) f.sentiment = r.pick(SENTIMENT_LABELS);
  if (r.bool(0.3)) f.min_impact = Math.round(r.next() * 100) / 100;
  if (r.bool(0.3)) f.source_types = some(r, SOURCE_TYPES);
  return f;
}

const strip = ({ canonical_url: _, ...a }: StoredArticle): Article => a;

export function runNewsStoreContract(
  name: string,
  make: () => Promise<{ store: ControlPlaneStore; cleanup: () => Promise<void> }>,
): void {
  describe(`NewsStore contract: ${name}`, () => {
    let cp: ControlPlaneStore;
    let news: NewsStore;
    let feeds: FeedStateStore;
    let cleanup: () => Promise<void>;
    const seed = fuzzSeed(`news-store-${name}`);
    const r = prng(seed);
    const all: StoredArticle[] = Array.from({ length: 120 }, (_, i) => article(r, i + 1));

    beforeAll(async () => {
      ({ store: cp, cleanup } = await make());
      await cp.migrate(NEWS_MIGRATIONS);
      await cp.migrate(NEWS_MIGRATIONS);
      news = new SqlNewsStore(cp.sql);
      feeds = new SqlFeedStateStore(cp.sql);
      for (const a of all) expect(await news.insert(a)).toBe(true);
    });
    afterAll(async () => {
      await cp.close();
      await cleanup();
    });

    test("get returns the article as stored, numbers and arrays intact", async () => {
      const a = all[7] as StoredArticle;
      expect(await news.get(a.article_id)).toEqual(strip(a));
      expect(await news.get("00000000-0000-5000-8000-999999999999")).toBeNull();
    });

    test("a second article with the same canonical URL (or id) is refused, not an error", async () => {
      const a = all[0] as StoredArticle;
      expect(await news.insert({ ...a, article_id: "00000000-0000-5000-8000-777777777777" })).toBe(false);
      expect(await news.insert({ ...a, canonical_url: "example.com/other" })).toBe(false);
      expect((await news.list({ limit: 200 })).articles).toHaveLength(all.length);
    });

    test(`filters agree with the stream's matches() (seed ${seed})`, async () => {
      for (let k = 0; k < 40; k++) {
        const f = randomFilter(r);
        const got = (await news.list({ ...f, limit: 200 })).articles.map((a) => a.article_id);
        const want = [...all]
          .reverse()
          .filter((a) => matches(f, a))
          .map((a) => a.article_id);
        expect({ filter: f, ids: got }).toEqual({ filter: f, ids: want });
      }
    });

    test("published_at range: from inclusive, to exclusive", async () => {
      const from = "2020-08-10T00:00:00+00:00";
      const to = "2020-08-20T00:00:00+00:00";
      const got = (await news.list({ from, to, limit: 200 })).articles;
      const want = all.filter((a) => a.published_at >= from && a.published_at < to);
      expect(got.map((a) => a.article_id).sort()).toEqual(want.map((a) => a.article_id).sort());
      const exact = all[3] as StoredArticle;
      const at = (await news.list({ from: exact.published_at, to: exact.published_at, limit: 200 })).articles;
      expect(at).toHaveLength(0);
    });

    test("paging walks ingest order newest first, without gaps or repeats, under a filter", async () => {
      const f: NewsFilter = { categories: ["markets", "macro"] };
      const seen: string[] = [];
      let after: number | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = await news.list({ ...f, after, limit: 7 });
        seen.push(...page.articles.map((a) => a.article_id));
        if (page.next === null) break;
        expect(page.articles).toHaveLength(7);
        after = page.next;
      }
      const want = [...all]
        .reverse()
        .filter((a) => matches(f, a))
        .map((a) => a.article_id);
      expect(seen).toEqual(want);
    });

    test("recentTitles lists the newest ingested first", async () => {
      const recent = await news.recentTitles(3);
      expect(recent.map((t) => t.title)).toEqual(["Headline 120", "Headline 119", "Headline 118"]);
    });

    test("feed state: a due feed is claimed once, leased, released with its validators", async () => {
      const t0 = new Date("2024-01-01T00:00:00Z");
      const first = await feeds.claim("rss:http://a/feed", "http://a/feed", t0, 60_000);
      expect(first).toMatchObject({ claimed: true, state: { failures: 0, etag: null } });
      const rival = await feeds.claim("rss:http://a/feed", "http://a/feed", t0, 60_000);
      expect(rival).toEqual({ claimed: false, retryAt: "2024-01-01T00:01:00.000Z" });
      await feeds.release("rss:http://a/feed", {
        etag: '"v1"',
        last_modified: null,
        failures: 0,
        next_poll_at: "2024-01-01T00:05:00.000Z",
        last_status: 200,
        last_error: null,
        last_polled_at: t0.toISOString(),
      });
      const early = await feeds.claim("rss:http://a/feed", "http://a/feed", new Date("2024-01-01T00:04:00Z"), 60_000);
      expect(early).toEqual({ claimed: false, retryAt: "2024-01-01T00:05:00.000Z" });
      const due = await feeds.claim("rss:http://a/feed", "http://a/feed", new Date("2024-01-01T00:05:00Z"), 60_000);
      expect(due).toMatchObject({ claimed: true, state: { etag: '"v1"', last_status: 200 } });
      // A poller that died holding the lease loses it when the lease runs out.
      const later = await feeds.claim("rss:http://a/feed", "http://a/feed", new Date("2024-01-01T00:06:01Z"), 60_000);
      expect(later.claimed).toBe(true);
      expect((await feeds.get("rss:http://a/feed"))?.etag).toBe('"v1"');
    });
  });
}
