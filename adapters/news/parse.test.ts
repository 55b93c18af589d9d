/**
 * Source parsers on the real samples in shared/data/news (RSS items from finnews, SEC
 * EDGAR Atom, GDELT Mentions, r/wallstreetbets CSV). Formats with no sample there (RSS 2.0
 * XML, Reddit listing JSON, GDELT GKG/DOC, X posts) are built from those real items or
 * from the published format, and say so.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sharedData } from "../../test/shared-data.ts";
import { parseSource, sniffSource } from "./parse.ts";

const news = sharedData("news", "news source parsers");
const read = (rel: string, enc: "utf-8" | "latin1" = "utf-8") =>
  new TextDecoder(enc).decode(readFileSync(join(news ?? "", rel)));

describe.skipIf(!news)("news source parsers on the shared samples", () => {
  test("JSON feed items (Nasdaq): links, dates with offset, publisher tickers and categories", () => {
    const items = parseSource("rss", read("feed_items/nasdaq_aapl_feed.json"), { url: "https://www.nasdaq.com/feed" });
    expect(items).toHaveLength(15);
    const first = items[0];
    expect(first).toMatchObject({
      source_type: "rss",
      source_name: "Nasdaq",
      url: "https://www.nasdaq.com/articles/dow-shake-up-explained-2020-08-26",
      title: "Dow Shake-Up Explained",
      published_at: "2020-08-26T21:49:00+00:00",
      hints: { tickers: ["HD", "AAPL", "DIS", "PFE", "CRM"], categories: ["Markets"] },
    });
    expect(first?.body.startsWith("In this episode of MarketFoolery")).toBe(true);
    // "AAPL,FB,AAPL,FB" arrives once each.
    expect(items[2]?.hints?.tickers).toEqual(["AAPL", "FB"]);
  });

  test("feedburner items use origLink, and zone names (EDT) are converted to UTC", () => {
    const items = parseSource("rss", read("feed_items/cnn_finance_markets.json"), { url: "http://rss.cnn.com/" });
    expect(items[0]?.url).toStartWith("http://money.cnn.com/2018/10/03/investing/");
    expect(items[0]?.published_at).toBe("2018-10-04T05:14:45+00:00");
    expect(items[0]?.source_name).toBe("CNN Business");
  });

  test("items that share one link fall back to their own link or guid (MarketWatch real-time)", () => {
    const items = parseSource("rss", read("feed_items/market_watch_real_time_headlines.json"), { url: "http://x/" });
    expect(items).toHaveLength(10);
    const keys = new Set(items.map((i) => `${i.url}#${i.guid ?? ""}`));
    expect(keys.size).toBe(10);
  });

  test("SEC EDGAR Atom (ISO-8859-1): 100 filings with form type, filer CIK and link", () => {
    const items = parseSource("rss", read("feeds/sec_edgar_latest_filings_atom_2025-12-12.xml", "latin1"), {
      url: "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent",
    });
    expect(items).toHaveLength(100);
    expect(items[1]).toMatchObject({
      source_name: "SEC EDGAR",
      title: "4 - Hinge Health, Inc. (0001673743) (Issuer)",
      url: "https://www.sec.gov/Archives/edgar/data/1673743/000206323625000004/0002063236-25-000004-index.htm",
      published_at: "2025-12-12T23:02:43+00:00",
      hints: { categories: ["4"], ciks: [1673743] },
    });
    // The summary is double-escaped HTML; it arrives as plain text.
    expect(items[1]?.body).toBe("Filed: 2025-12-12 AccNo: 0002063236-25-000004 Size: 10 KB");
  });

  test("RSS 2.0 XML (built from real Nasdaq items): CDATA, entities, namespaces, categories", () => {
    const sample = JSON.parse(read("feed_items/nasdaq_earning_feed.json")) as Record<string, string>[];
    const cdata = (s: string) => `<![CDATA[${s}]]>`;
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:nasdaq="http://nasdaq.com/reference/feeds/1.0">
<channel><title>Nasdaq Earnings</title>${sample
      .slice(0, 3)
      .map(
        (i) => `<item><title>${cdata(i.title ?? "")}</title><link>${i.link}</link>
<description>&lt;p&gt;${(i.description ?? "").replace(/&/g, "&amp;")}&lt;/p&gt;</description>
<pubDate>${i.pubDate}</pubDate><dc:creator>${i.creator}</dc:creator>
${(i.category ?? "")
  .split(",")
  .map((c) => `<category>${c}</category>`)
  .join("")}<nasdaq:tickers>${i.tickers ?? ""}</nasdaq:tickers></item>`,
      )
      .join("\n")}</channel></rss>`;
    const items = parseSource("rss", xml, { url: "https://www.nasdaq.com/feed/rssoutbound?category=Earnings" });
    expect(items).toHaveLength(3);
    expect(items.map((i) => i.title)).toEqual(sample.slice(0, 3).map((i) => i.title ?? ""));
    expect(items[0]?.url).toBe(sample[0]?.link);
    expect(items[0]?.body).toBe(sample[0]?.description);
    expect(items[0]?.hints?.categories).toEqual((sample[0]?.category ?? "").split(","));
    expect(sniffSource(xml)).toBe("rss");
  });

  test("GDELT Mentions CSV: web mentions only, headline from the slug, tone and UTC time", () => {
    const items = parseSource("gdelt", read("gdelt/gdelt2_mentions_sample.csv"), {
      url: "http://data.gdeltproject.org/",
    });
    expect(items.length).toBeGreaterThan(500);
    const peru = items.find((i) => i.url.includes("tvperu.gob.pe"));
    expect(peru).toMatchObject({
      source_type: "gdelt",
      source_name: "tvperu.gob.pe",
      title: "I gabinete ministerial binacional peru chile se realizara en lima",
      published_at: "2017-07-01T23:45:00+00:00",
    });
    expect(peru?.hints?.tone).toBeCloseTo(0.637, 3);
    // A URL without a readable slug gives no headline and is skipped.
    expect(items.some((i) => i.url === "http://arabic.china.org.cn/txt/2017-07/02/content_41135804.htm")).toBe(false);
  });

  test("GDELT Mentions and GKG exports as headerless TSV (GDELT 2.x column order)", () => {
    const mention = [
      "669670701",
      "20170701234500",
      "20170701234500",
      "1",
      "reuters.com",
      "https://www.reuters.com/article/us-markets-stocks/wall-street-closes-higher-as-tech-rallies-idUSKBN19M",
      "4",
      "-1",
      "996",
      "988",
      "1",
      "100",
      "2579",
      "-2.5",
      "",
      "",
    ].join("\t");
    const [m] = parseSource("gdelt", `${mention}\n`, { url: "http://x/" });
    expect(m).toMatchObject({ title: "Wall street closes higher as tech rallies", hints: { tone: -2.5 } });

    const gkg = Array.from({ length: 27 }, () => "");
    gkg[0] = "20170701234500-12";
    gkg[1] = "20170701234500";
    gkg[3] = "ft.com";
    gkg[4] = "https://www.ft.com/content/abc";
    gkg[7] = "ECON_STOCKMARKET;TAX_FNCACT";
    gkg[9] = "1#Germany#GM#GM#51#9#GM;4#London, UK#UK#UK#51.5#-0.12#-2601889";
    gkg[15] = "-3.2,1.1,4.3,5.4,20,0,700";
    gkg[26] = "<PAGE_TITLE>Deutsche Bank shares slide &amp; Bund yields rise</PAGE_TITLE>";
    const [g] = parseSource("gdelt", `${gkg.join("\t")}\n`, { url: "http://x/" });
    expect(g).toMatchObject({
      title: "Deutsche Bank shares slide & Bund yields rise",
      source_name: "ft.com",
      hints: { countries: ["DE", "GB"], categories: ["ECON_STOCKMARKET", "TAX_FNCACT"], tone: -3.2 },
    });
  });

  test("GDELT DOC 2.0 article list JSON", () => {
    const doc = {
      articles: [
        {
          url: "https://www.cnbc.com/2020/07/20/stock-market-futures-open-to-close-news.html",
          title: "Stock futures hold steady in overnight trading",
          seendate: "20200721T003000Z",
          domain: "cnbc.com",
          language: "English",
          sourcecountry: "United States",
        },
      ],
    };
    const body = JSON.stringify(doc);
    expect(sniffSource(body)).toBe("gdelt");
    expect(parseSource("gdelt", body, { url: "https://api.gdeltproject.org/api/v2/doc/doc" })).toEqual([
      {
        source_type: "gdelt",
        source_name: "cnbc.com",
        url: doc.articles[0]?.url ?? "",
        title: "Stock futures hold steady in overnight trading",
        body: "",
        published_at: "2020-07-21T00:30:00+00:00",
      },
    ]);
  });

  test("r/wallstreetbets CSV: posts with permalink, body and engagement; comment rows skipped", () => {
    const items = parseSource("reddit", read("social/reddit_wallstreetbets_posts_2022-01.csv"), {
      url: "file:///x",
      subreddit: "wallstreetbets",
    });
    expect(items.length).toBe(913);
    const tesla = items.find((i) => i.title === "Bearish on Tesla earnings?");
    expect(tesla).toMatchObject({
      source_type: "reddit",
      source_name: "r/wallstreetbets",
      url: "https://www.reddit.com/r/wallstreetbets/comments/s9i754/",
      published_at: "2022-01-21T19:04:56+00:00",
      hints: { engagement: 8 },
    });
  });

  test("Reddit listing JSON (the real CSV posts in /r/{sub}/new.json shape)", () => {
    const posts = parseSource("reddit", read("social/reddit_wallstreetbets_posts_2022-01.csv"), { url: "x" }).slice(
      0,
      3,
    );
    const listing = {
      kind: "Listing",
      data: {
        after: "t3_x",
        children: posts.map((p) => ({
          kind: "t3",
          data: {
            id: p.url.split("/").at(-2),
            title: p.title,
            selftext: p.body,
            subreddit: "wallstreetbets",
            permalink: new URL(p.url).pathname,
            created_utc: Date.parse(p.published_at ?? "") / 1000,
            score: 5,
            num_comments: 2,
          },
        })),
      },
    };
    const body = JSON.stringify(listing);
    expect(sniffSource(body)).toBe("reddit");
    const items = parseSource("reddit", body, { url: "https://www.reddit.com/r/wallstreetbets/new.json" });
    expect(items.map((i) => [i.url, i.title, i.published_at])).toEqual(
      posts.map((p) => [p.url, p.title, p.published_at]),
    );
    expect(items[0]?.hints?.engagement).toBe(7);
  });

  test("X API v2 and v1.1 post JSON: author handle, cashtag entities, first line as title", () => {
    const v2 = {
      data: [
        {
          id: "1296887316556980230",
          text: "$AAPL splits 4-for-1 today\nShares up 3% premarket",
          created_at: "2020-08-31T12:00:00.000Z",
          author_id: "42",
          entities: { cashtags: [{ start: 0, end: 5, tag: "AAPL" }] },
          public_metrics: { retweet_count: 10, reply_count: 2, like_count: 88, quote_count: 0 },
        },
      ],
      includes: { users: [{ id: "42", name: "Markets Desk", username: "marketsdesk" }] },
      meta: { result_count: 1, newest_id: "1296887316556980230" },
    };
    expect(sniffSource(JSON.stringify(v2))).toBe("twitter");
    expect(parseSource("twitter", JSON.stringify(v2), { url: "https://api.x.com/2/tweets/search/recent" })).toEqual([
      {
        source_type: "twitter",
        source_name: "@marketsdesk",
        url: "https://x.com/marketsdesk/status/1296887316556980230",
        title: "$AAPL splits 4-for-1 today",
        body: "$AAPL splits 4-for-1 today Shares up 3% premarket",
        published_at: "2020-08-31T12:00:00+00:00",
        hints: { tickers: ["AAPL"], engagement: 100 },
      },
    ]);
    const v1 = [
      {
        id_str: "1050118621198921728",
        full_text: "Tesla deliveries beat estimates $TSLA",
        created_at: "Wed Oct 10 20:19:24 +0000 2018",
        user: { screen_name: "autonews" },
        entities: { symbols: [{ text: "TSLA" }] },
        favorite_count: 3,
        retweet_count: 1,
      },
    ];
    const [post] = parseSource("twitter", JSON.stringify(v1), { url: "x" });
    expect(post).toMatchObject({
      url: "https://x.com/autonews/status/1050118621198921728",
      published_at: "2018-10-10T20:19:24+00:00",
      hints: { tickers: ["TSLA"], engagement: 4 },
    });
  });

  test("sniffing tells every sample file's type, and refuses schemas, word lists and labelled sets", () => {
    expect(sniffSource(read("feed_items/wsj_market_news.json"))).toBe("rss");
    expect(sniffSource(read("feeds/sec_edgar_latest_filings_atom_2025-12-12.xml", "latin1"))).toBe("rss");
    expect(sniffSource(read("gdelt/gdelt2_mentions_sample.csv"))).toBe("gdelt");
    expect(sniffSource(read("social/reddit_wallstreetbets_posts_2022-01.csv"))).toBe("reddit");
    expect(sniffSource(read("gdelt/gdelt2_gkg_schema.csv"))).toBeNull();
    expect(sniffSource(read("gdelt/cameo_codes.json"))).toBeNull();
    expect(sniffSource(read("sentiment/financial_phrasebank_all-data.csv", "latin1"))).toBeNull();
  });

  test("malformed bodies raise a non-retryable parse error", () => {
    expect(() => parseSource("rss", "<rss><channel><item>", { url: "x" })).toThrow();
    expect(() => parseSource("rss", "<html><body>nope</body></html>", { url: "x" })).toThrow(/neither RSS/);
    expect(() => parseSource("twitter", "{not json", { url: "x" })).toThrow(/not valid JSON/);
  });
});
