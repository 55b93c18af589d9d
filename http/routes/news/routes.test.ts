/**
 * GET /v1/news/{article_id} and GET /v1/news on an embedded service with the real samples
 * ingested through the pipeline. Filter results are checked against domain/news/types/types.ts
 * `matches` over everything stored, so history agrees with the stream's semantics.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readLocalFeeds, SqlNewsStore } from "../../../adapters/news/index.ts";
import { type Article, type ArticleWire, matches, type NewsFilter } from "../../../domain/news/types.ts";
import { createCompanyLinker, NewsIngestor } from "../../../pipelines/news/index.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { sharedData } from "../../../test/shared-data.ts";

const WIRE_KEYS = [
  "article_id",
  "categories",
  "company_names",
  "company_tickers",
  "country_codes",
  "impact_label",
  "impact_score",
  "published_at",
  "sentiment_label",
  "sentiment_score",
  "snippet",
  "source_name",
  "source_type",
  "summary",
  "title",
  "url",
];

interface Page {
  articles: ArticleWire[];
  next_cursor: string | null;
}

/** The typed article a wire object encodes (ingested_at is not on the wire). */
function fromWire(w: ArticleWire): Omit<Article, "ingested_at"> {
  return {
    ...w,
    categories: JSON.parse(w.categories),
    country_codes: JSON.parse(w.country_codes),
    company_tickers: JSON.parse(w.company_tickers),
    company_names: JSON.parse(w.company_names),
    sentiment_score: Number(w.sentiment_score),
    impact_score: Number(w.impact_score),
  };
}

const dir = sharedData("news", "news routes");
describe.skipIf(!dir)("news REST routes", () => {
  let svc: TestService;
  let key: string;
  /** Every stored article, newest ingested first, read once through the API. */
  let all: ArticleWire[];
  const get = (path: string) => svc.request(path, { headers: { "x-api-key": key } });
  const page = async (query: string) => {
    const res = await get(`/v1/news${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Page;
  };
  const walk = async (query: string, limit = 200): Promise<ArticleWire[]> => {
    const out: ArticleWire[] = [];
    let cursor: string | null = null;
    do {
      const sep = query ? "&" : "";
      const p: Page = await page(`?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
      out.push(...p.articles);
      cursor = p.next_cursor;
    } while (cursor);
    return out;
  };

  beforeAll(async () => {
    svc = await startTestService({ CAIRN_RATE_LIMIT_SCALE: "100" });
    key = await svc.apiKey("news@example.com", "enterprise");
    const ingestor = new NewsIngestor({
      store: new SqlNewsStore(svc.service.store.sql),
      publisher: svc.service.newsHub,
      linker: createCompanyLinker(),
      logger: svc.service.deps.logger,
    });
    for (const f of readLocalFeeds(dir ?? ""))
      if (f.type && !f.file.startsWith("gdelt")) await ingestor.ingest(f.items);
    all = await walk("");
  });
  afterAll(() => svc.close());

  test("need an API key (a bearer token is the wrong scheme)", async () => {
    expect((await svc.request("/v1/news")).status).toBe(401);
    const token = await svc.token("news@example.com");
    expect((await svc.request("/v1/news", { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  test("GET /v1/news/{article_id}: the spec 2.11 object, every value a string", async () => {
    const some = all.find((a) => a.title.startsWith("Splits, Shorts")) as ArticleWire;
    const res = await get(`/v1/news/${some.article_id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(WIRE_KEYS);
    for (const v of Object.values(body)) expect(typeof v).toBe("string");
    expect(body).toEqual({ ...some });
    expect(JSON.parse(body.company_tickers as string)).toEqual(expect.arrayContaining(["AAPL", "TSLA"]));
    expect(body.published_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
  });

  test("a malformed id is 422 with the section 7 body; an unknown one is 404", async () => {
    const bad = await get("/v1/news/not-a-uuid");
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      detail: [
        {
          loc: ["path", "article_id"],
          msg: "Input should be a valid UUID",
          type: "uuid_parsing",
          input: "not-a-uuid",
          ctx: {},
        },
      ],
    });
    const unknown = await get("/v1/news/2f1d7a3e-5b0c-5e8a-9c41-7d2b6e0f4a13");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "No news article with that id" });
  });

  test("the stream's path is not taken for an article id", async () => {
    const res = await get("/v1/news/stream");
    expect(res.status).not.toBe(422);
    expect(res.status).not.toBe(404);
  });

  test("history: 50 by default, newest ingested first, cursor pages without gaps or repeats", async () => {
    expect(all.length).toBeGreaterThan(1000);
    const first = await page("");
    expect(first.articles).toHaveLength(50);
    expect(first.articles).toEqual(all.slice(0, 50));
    expect(typeof first.next_cursor).toBe("string");
    const second = await page(`?cursor=${first.next_cursor}`);
    expect(second.articles).toEqual(all.slice(50, 100));
    expect(new Set(all.map((a) => a.article_id)).size).toBe(all.length);
    const small = await walk("source_types=rss", 37);
    expect(small).toEqual(all.filter((a) => a.source_type === "rss"));
  });

  test("filters combine like the stream's: OR within a field, AND across fields", async () => {
    const cases: [string, NewsFilter][] = [
      ["tickers=AAPL", { tickers: ["AAPL"] }],
      ["tickers=aapl,TSLA,NFLX", { tickers: ["AAPL", "TSLA", "NFLX"] }],
      ["categories=earnings,insider_trading", { categories: ["earnings", "insider_trading"] }],
      ["countries=us,CN", { countries: ["US", "CN"] }],
      ["sentiment=bearish", { sentiment: "bearish" }],
      ["min_impact=0.6", { min_impact: 0.6 }],
      ["source_types=reddit", { source_types: ["reddit"] }],
      [
        "source_types=rss&sentiment=bullish&categories=markets",
        { source_types: ["rss"], sentiment: "bullish", categories: ["markets"] },
      ],
      [
        "tickers=TSLA&min_impact=0.5&source_types=reddit,twitter",
        { tickers: ["TSLA"], min_impact: 0.5, source_types: ["reddit", "twitter"] },
      ],
    ];
    for (const [query, filter] of cases) {
      const got = await walk(query);
      const want = all.filter((w) => matches(filter, { ...fromWire(w), ingested_at: "" }));
      expect({ query, ids: got.map((a) => a.article_id) }).toEqual({ query, ids: want.map((a) => a.article_id) });
      expect(want.length).toBeGreaterThan(0);
    }
  });

  test("from/to bound published_at: from inclusive, to exclusive; dates and offsets accepted", async () => {
    const got = await walk("from=2020-08-01&to=2020-08-26T12:00:00-04:00");
    const want = all.filter(
      (a) => a.published_at >= "2020-08-01T00:00:00+00:00" && a.published_at < "2020-08-26T16:00:00+00:00",
    );
    expect(got.map((a) => a.article_id)).toEqual(want.map((a) => a.article_id));
    expect(want.length).toBeGreaterThan(0);
  });

  test("invalid parameters are 422 with the section 7 body", async () => {
    const cases: [string, string[], string][] = [
      ["limit=201", ["query", "limit"], "less_than_equal"],
      ["limit=0", ["query", "limit"], "greater_than_equal"],
      ["min_impact=1.5", ["query", "min_impact"], "less_than_equal"],
      ["sentiment=happy", ["query", "sentiment"], "enum"],
      ["source_types=rss,telegram", ["query", "source_types", "1"], "enum"],
      ["countries=USA", ["query", "countries", "0"], "string_pattern_mismatch"],
      ["cursor=garbage", ["query", "cursor"], "value_error"],
      ["from=yesterday", ["query", "from"], "value_error"],
      ["from=2020-09-01&to=2020-08-01", ["query", "from"], "value_error"],
    ];
    for (const [query, loc, type] of cases) {
      const res = await get(`/v1/news?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      const body = (await res.json()) as { detail: { loc: string[]; type: string }[] };
      expect({ query, loc: body.detail[0]?.loc, type: body.detail[0]?.type }).toEqual({ query, loc, type });
    }
  });
});
