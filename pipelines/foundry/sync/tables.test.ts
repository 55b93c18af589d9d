import { describe, expect, test } from "bun:test";
import type { Article } from "../../../domain/news/types.ts";
import {
  COLUMNS,
  cikKey,
  companyRow,
  dateOf,
  KEYS,
  mentionRows,
  newsRow,
  sicSector,
  sortRows,
  tickerKey,
} from "./tables.ts";

const article = (over: Partial<Article> = {}): Article => ({
  article_id: "a1",
  url: "https://example.com/a1",
  title: "Apple and Nvidia",
  snippet: "",
  summary: "",
  source_name: "Example",
  source_type: "rss",
  published_at: "2024-01-02T03:04:05Z",
  categories: ["earnings", "tech"],
  country_codes: ["US"],
  company_tickers: ["aapl", "NVDA", "AAPL"],
  company_names: ["Apple, Inc.", "NVIDIA Corp"],
  sentiment_label: "bullish",
  sentiment_score: 0.5,
  impact_score: 0.25,
  impact_label: "low",
  ingested_at: "2024-01-02T03:05:00Z",
  ...over,
});

describe("foundry table keys", () => {
  test("cik is 10 digits zero-padded, ticker upper case, dates YYYY-MM-DD", () => {
    expect(cikKey("320193")).toBe("0000320193");
    expect(cikKey(1045810)).toBe("0001045810");
    expect(cikKey("0000320193")).toBe("0000320193");
    expect(cikKey("12345678901")).toBeNull();
    expect(cikKey("AAPL")).toBeNull();
    expect(tickerKey(" brk.b ")).toBe("BRK.B");
    expect(tickerKey("  ")).toBeNull();
    expect(dateOf("2014-01-02T00:00:00.000000Z")).toBe("2014-01-02");
    expect(dateOf("01/02/2014")).toBeNull();
  });

  test("sector is the SIC division of the code", () => {
    expect(sicSector("3571")).toBe("Manufacturing");
    expect(sicSector("7372")).toBe("Services");
    expect(sicSector("6798")).toBe("Finance, Insurance and Real Estate");
    expect(sicSector("1311")).toBe("Mining");
    expect(sicSector("0100")).toBe("Agriculture, Forestry and Fishing");
    expect(sicSector("9995")).toBe("Public Administration");
    expect(sicSector("")).toBeNull();
    expect(sicSector(null)).toBeNull();
  });

  test("a company row pads its cik, upper-cases and joins its tickers", () => {
    const row = companyRow({
      cik: "320193",
      name: "Apple Inc.",
      ticker: null,
      tickers: ["aapl", "AAPL"],
      exchanges: ["Nasdaq"],
      sic: "3571",
      sic_description: "Electronic Computers",
      fiscal_year_end: "0928",
      state_of_incorporation: "CA",
    });
    const names = COLUMNS.companies.map((c) => c.name);
    expect(Object.fromEntries(names.map((n, i) => [n, row[i]]))).toEqual({
      cik: "0000320193",
      ticker: "AAPL",
      name: "Apple Inc.",
      tickers: "AAPL",
      exchange: "Nasdaq",
      exchanges: "Nasdaq",
      sic: "3571",
      sector: "Manufacturing",
      industry: "Electronic Computers",
      fiscal_year_end: "0928",
      state_of_incorporation: "CA",
    });
  });

  test("news joins tickers with commas and names with semicolons; one mention per distinct ticker", () => {
    const row = newsRow(article());
    expect(row).toHaveLength(COLUMNS.news.length);
    const col = (n: string) => row[COLUMNS.news.findIndex((c) => c.name === n)];
    expect(col("tickers")).toBe("AAPL,NVDA");
    expect(col("company_names")).toBe("Apple, Inc.; NVIDIA Corp");
    expect(col("categories")).toBe("earnings,tech");
    expect(newsRow(article({ company_tickers: [], categories: [] }))[8]).toBeNull();
    const m = mentionRows(article(), new Map([["AAPL", "0000320193"]]));
    expect(m.map((r) => [r[1], r[2]])).toEqual([
      ["AAPL", "0000320193"],
      ["NVDA", null],
    ]);
  });

  test("rows sort by key and keep one row per key, the same one whatever the input order", () => {
    const cols = COLUMNS.market_daily.length;
    const bar = (t: string, d: string, close: number) => {
      const r: unknown[] = Array.from({ length: cols }, () => null);
      r[0] = t;
      r[2] = d;
      r[6] = close;
      return r;
    };
    const input = [bar("NVDA", "2014-01-03", 2), bar("AAPL", "2014-01-02", 1), bar("NVDA", "2014-01-03", 1)];
    const one = sortRows("market_daily", [...input]);
    const two = sortRows("market_daily", [...input].reverse());
    expect(one).toEqual(two);
    expect(one.map((r) => [r[0], r[2]])).toEqual([
      ["AAPL", "2014-01-02"],
      ["NVDA", "2014-01-03"],
    ]);
    expect(KEYS.market_daily).toEqual(["ticker", "date"]);
  });
});
