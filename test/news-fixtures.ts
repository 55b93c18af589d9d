/**
 * Realistic enriched articles for news-stream tests and the benchmark: real headlines
 * from the Nasdaq RSS sample (shared/data/news/feed_items, captured 2020), with the
 * fields enrichment would add, plus a seeded generator for fuzz tests and load.
 */
import type { Article, SentimentLabel, SourceType } from "../domain/news/types.ts";
import type { Prng } from "./prng.ts";

interface Seed {
  title: string;
  url: string;
  snippet: string;
  source_name: string;
  tickers: string[];
  names: string[];
  categories: string[];
}

const SEEDS: readonly Seed[] = [
  {
    title: "Splits, Shorts, and Refinances: What Investors Need to Know",
    url: "https://www.nasdaq.com/articles/splits-shorts-and-refinances%3A-what-investors-need-to-know-2020-08-26",
    snippet:
      "Tesla (NASDAQ: TSLA) and Apple (NASDAQ: AAPL) are about to split their stocks, and both have been going higher since making their announcements.",
    source_name: "The Motley Fool",
    tickers: ["AAPL", "TSLA"],
    names: ["Apple Inc.", "Tesla, Inc."],
    categories: ["markets"],
  },
  {
    title: "Facebook Claims an Apple iPhone Update Will Damage Ad Sales",
    url: "https://www.nasdaq.com/articles/facebook-claims-an-apple-iphone-update-will-damage-ad-sales-2020-08-26",
    snippet:
      "Facebook (NASDAQ: FB) and Apple (NASDAQ: AAPL), never the best of tech industry friends, are at odds over the latter\u2019s upcoming update to the iPhone\u2019s operating system.",
    source_name: "The Motley Fool",
    tickers: ["AAPL", "FB"],
    names: ["Apple Inc.", "Facebook, Inc."],
    categories: ["products", "regulatory"],
  },
  {
    title: "GLOBAL MARKETS-Shares scale record peak on upbeat results, dollar eases",
    url: "https://www.nasdaq.com/articles/global-markets-shares-scale-record-peak-on-upbeat-results-dollar-eases-2020-08-26",
    snippet:
      "A gauge of global equity markets jumped to an all-time peak on Wednesday, after the S&P 500 and Nasdaq rallied to fresh records on upbeat corporate results.",
    source_name: "Reuters",
    tickers: ["MSFT", "AMZN", "GOOGL"],
    names: ["Microsoft Corporation", "Amazon.com, Inc.", "Alphabet Inc."],
    categories: ["markets", "macro"],
  },
  {
    title: "Box (BOX) 2nd Quarter Earnings: What to Expect",
    url: "https://www.nasdaq.com/articles/box-box-2nd-quarter-earnings%3A-what-to-expect-2020-08-26",
    snippet:
      "Can Box (BOX) Finally escape the shadows of its larger competitors? That\u2019s the question, among many, investors will want the company to answer.",
    source_name: "Nasdaq",
    tickers: ["BOX"],
    names: ["Box, Inc."],
    categories: ["earnings"],
  },
  {
    title: "Salesforce (CRM) 2nd Quarter Earnings: What to Expect",
    url: "https://www.nasdaq.com/articles/salesforce-crm-2nd-quarter-earnings%3A-what-to-expect-2020-08-25",
    snippet:
      "Shares of Salesforce (CRM) have risen some 9% over the past month, besting the 4% rise of the S&P 500 index.",
    source_name: "Nasdaq",
    tickers: ["CRM"],
    names: ["Salesforce.com, Inc."],
    categories: ["earnings"],
  },
  {
    title: "Daily Markets: Equities Cheer Potential Progress on U.S.-China Trade Deal",
    url: "https://www.nasdaq.com/articles/daily-markets%3A-equities-cheer-potential-progress-on-u.s.-china-trade-deal-2020-08-25",
    snippet:
      "The message emanating from the trade conversation was both sides see progress and are committed to taking the steps necessary to ensure the success of the agreement.",
    source_name: "Nasdaq",
    tickers: [],
    names: [],
    categories: ["markets", "macro"],
  },
];

const impactLabel = (score: number) => (score >= 0.7 ? "high" : score >= 0.4 ? "medium" : "low");

/** One realistic article (a real headline); override any field. Ids are fresh per call. */
export function makeArticle(overrides: Partial<Article> = {}, seedIndex = 0): Article {
  const s = SEEDS[seedIndex % SEEDS.length] as Seed;
  const impact = overrides.impact_score ?? 0.62;
  return {
    article_id: crypto.randomUUID(),
    url: s.url,
    title: s.title,
    snippet: s.snippet,
    summary: `${s.title}. ${s.snippet}`,
    source_name: s.source_name,
    source_type: "rss",
    published_at: "2020-08-26T21:15:00+00:00",
    categories: s.categories,
    country_codes: ["US"],
    company_tickers: s.tickers,
    company_names: s.names,
    sentiment_label: "bullish",
    sentiment_score: 0.41,
    impact_score: impact,
    impact_label: impactLabel(impact),
    ingested_at: new Date().toISOString(),
    ...overrides,
  };
}

/** Value universes shared by the fuzz test and the benchmark. */
export const UNIVERSE = {
  /** A subset of the enrichment's vocabulary (pipelines/news/categories.ts). */
  categories: [
    "earnings",
    "guidance",
    "mergers_acquisitions",
    "ipo",
    "dividends",
    "analyst_ratings",
    "regulatory",
    "macro",
    "markets",
    "crypto",
  ],
  countries: ["US", "GB", "DE", "JP", "CN", "FR", "CA", "IN", "AU", "BR"],
  sourceTypes: ["rss", "gdelt", "reddit", "twitter"] as SourceType[],
  sentiments: ["bullish", "bearish", "neutral"] as SentimentLabel[],
} as const;

/** `n` synthetic tickers: the first few are real, the rest T0001... */
export function tickerUniverse(n: number): string[] {
  const real = ["AAPL", "MSFT", "AMZN", "GOOGL", "TSLA", "FB", "NVDA", "JPM", "BOX", "CRM"];
  const out = real.slice(0, n);
  for (let i = out.length; i < n; i++) out.push(`T${String(i).padStart(4, "0")}`);
  return out;
}

/** Picks k distinct items (fewer if the list is shorter), using `draw` for each index. */
export function pickDistinct<T>(items: readonly T[], k: number, draw: () => number): T[] {
  const out = new Set<T>();
  for (let tries = 0; out.size < Math.min(k, items.length) && tries < k * 8; tries++) {
    out.add(items[Math.min(items.length - 1, Math.floor(draw() * items.length))] as T);
  }
  return [...out];
}

/** A random article over the universes (seeded), based on a real headline. */
export function randomArticle(rng: Prng, tickers: readonly string[]): Article {
  const impact = Math.round(rng.next() * 1000) / 1000;
  return makeArticle(
    {
      company_tickers: pickDistinct(tickers, rng.int(4), rng.next),
      categories: pickDistinct(UNIVERSE.categories, rng.int(3), rng.next),
      country_codes: pickDistinct(UNIVERSE.countries, rng.int(3), rng.next),
      source_type: rng.pick(UNIVERSE.sourceTypes),
      sentiment_label: rng.pick(UNIVERSE.sentiments),
      sentiment_score: Math.round((rng.next() * 2 - 1) * 1000) / 1000,
      impact_score: impact,
      impact_label: impactLabel(impact),
    },
    rng.int(SEEDS.length),
  );
}
