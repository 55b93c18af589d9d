/** The rules planner: the shapes it understands, what it refuses, and that caller text never reaches a statement. */
import { describe, expect, test } from "bun:test";
import { planQuestion } from "./plan.ts";
import type { KnownCompany, PlanContext } from "./plan-types.ts";
import { checkCypher, checkSql } from "./validate.ts";

const companies: KnownCompany[] = [
  { cik: "0000320193", ticker: "AAPL", name: "Apple Inc.", sector: "Manufacturing", industry: "Electronic Computers" },
  {
    cik: "0001045810",
    ticker: "NVDA",
    name: "NVIDIA CORP",
    sector: "Manufacturing",
    industry: "Semiconductors & Related Devices",
  },
  { cik: "0001652044", ticker: "GOOGL", name: "ALPHABET INC.", sector: null, industry: null },
  {
    cik: "0001465740",
    ticker: "TWO",
    name: "TWO HARBORS INVESTMENT CORP.",
    sector: "Finance, Insurance and Real Estate",
    industry: "Real Estate Investment Trusts",
  },
];
const TABLES = [
  "companies",
  "income_statements",
  "financial_ratios",
  "filings",
  "news",
  "news_mentions",
  "market_daily",
];
const ctx: PlanContext = { tables: new Set(TABLES), companies, graph: true, timeseries: true };

function sqlOf(question: string, c: PlanContext = ctx): string {
  const p = planQuestion(question, c);
  if (!("source" in p) || p.source !== "lakehouse") throw new Error(`expected a lakehouse plan: ${JSON.stringify(p)}`);
  checkSql(p.sql, TABLES, 1000);
  return p.sql;
}

describe("planQuestion", () => {
  test("a metric for a company and a fiscal year, quarter or range", () => {
    expect(sqlOf("What was Apple's revenue in fiscal 2023?")).toContain(
      "FROM income_statements WHERE cik IN ('0000320193') AND fiscal_year = 2023 AND fiscal_period = 'FY'",
    );
    expect(sqlOf("NVDA gross margin FY24")).toContain(
      "gross_margin FROM financial_ratios WHERE cik IN ('0001045810') AND fiscal_year = 2024",
    );
    expect(sqlOf("Apple net income in Q2 2024")).toContain("fiscal_period = 'Q2'");
    expect(sqlOf("Apple revenue between 2020 and 2022")).toContain("fiscal_year BETWEEN 2020 AND 2022");
    expect(sqlOf("Google revenue in 2021")).toContain("'0001652044'");
    expect(sqlOf("What is Apple's latest net income?")).toMatch(/ORDER BY fiscal_year DESC LIMIT 1$/);
  });

  test("a short company word is not a company on its own (TWO), its ticker is", () => {
    expect(sqlOf("TWO revenue in 2023")).toContain("'0001465740'");
    expect(sqlOf("top two companies by revenue in 2023")).not.toContain("0001465740");
  });

  test("top-N, lowest, filters and aggregates across companies", () => {
    expect(sqlOf("Top 3 companies by net income in 2024")).toMatch(/ORDER BY m\.net_income DESC, m\.ticker LIMIT 3$/);
    expect(sqlOf("Which company had the lowest net margin in 2023?")).toMatch(
      /ORDER BY m\.net_margin ASC, m\.ticker LIMIT 1$/,
    );
    expect(sqlOf("How many companies had revenue above $100 billion in 2023?")).toContain("m.revenue > 100000000000");
    expect(sqlOf("How many companies had a gross margin over 50% in 2023?")).toContain("m.gross_margin > 0.5");
    expect(sqlOf("average gross margin of Manufacturing companies in 2023")).toContain(
      "avg(m.gross_margin) AS avg_gross_margin, count(*) AS companies FROM financial_ratios m JOIN companies c ON c.cik = m.cik",
    );
    expect(sqlOf("total revenue of semiconductor companies in 2024")).toContain(
      "c.industry = 'Semiconductors & Related Devices'",
    );
  });

  test("filings, news, company facts", () => {
    expect(sqlOf("How many 10-K filings has Apple filed?")).toBe(
      "SELECT count(*) AS filings FROM filings WHERE cik = '0000320193' AND form = '10-K'",
    );
    expect(sqlOf("How many news articles mention NVDA?")).toContain("FROM news_mentions WHERE ticker = 'NVDA'");
    expect(sqlOf("What sector is NVIDIA in?")).toContain("FROM companies WHERE cik = '0001045810'");
  });

  test("a time window over market data is a time-series plan, or SQL over market_daily without real-time tables", () => {
    const p = planQuestion("average close of NVDA in March 2013", ctx);
    expect(p).toMatchObject({
      source: "timeseries",
      market: { symbol: "NVDA", column: "close", agg: "avg", range: { from: "2013-03-01", to: "2013-04-01" } },
    });
    expect(planQuestion("ORCL highest high over the last 2 weeks", ctx)).toMatchObject({
      market: { symbol: "ORCL", column: "high", agg: "max", range: { lastDays: 14 } },
    });
    expect(planQuestion("NVDA close on 2014-01-02", ctx)).toMatchObject({
      market: { agg: "last", range: { from: "2014-01-02", to: "2014-01-03" } },
    });
    const none = planQuestion("average close of NVDA in 2013", {
      ...ctx,
      timeseries: false,
      tables: new Set(["companies"]),
    });
    expect(none).toEqual({ unanswerable: expect.stringContaining("market data") });
  });

  test("the graph: subsidiaries, holders, insiders; names go in as parameters", () => {
    const p = planQuestion("How many subsidiaries does Exxon Mobil have?", ctx);
    if (!("source" in p) || p.source !== "graph") throw new Error("expected a graph plan");
    expect(p.cypher).toContain("count(s) AS subsidiaries");
    expect(p.params).toEqual({ ticker: "", name: "exxon mobil" });
    checkCypher(p.cypher);
    const h = planQuestion("Who owns Apple?", ctx);
    expect(h).toMatchObject({ source: "graph", params: { ticker: "AAPL", name: "apple" } });
    const hostile = planQuestion("subsidiaries of x') DETACH DELETE p //", ctx);
    if (!("source" in hostile) || hostile.source !== "graph") throw new Error("expected a graph plan");
    expect(hostile.cypher).not.toContain("DETACH");
    checkCypher(hostile.cypher);
    expect(planQuestion("Who owns Apple?", { ...ctx, graph: false })).toEqual({
      unanswerable: expect.stringContaining("graph"),
    });
  });

  test("the tenant's own portfolios and watchlists are read models; a fund's portfolio stays in the graph", () => {
    const rm = { ...ctx, readModels: true };
    expect(planQuestion("What is in my Tech Leaders portfolio?", rm)).toMatchObject({
      source: "readmodel",
      readmodel: { kind: "holdings", name: "tech leaders" },
    });
    expect(planQuestion('Show the portfolio "Dividend Core"', rm)).toMatchObject({
      readmodel: { kind: "holdings", name: "dividend core" },
    });
    expect(planQuestion("Which of our portfolios hold NVDA?", rm)).toMatchObject({
      readmodel: { kind: "holders", ticker: "NVDA" },
    });
    expect(planQuestion("Which of my watchlists include Apple?", rm)).toMatchObject({
      readmodel: { kind: "holders", ticker: "AAPL" },
    });
    expect(planQuestion("List my watchlists", rm)).toMatchObject({
      readmodel: { kind: "portfolios", of: "watchlist" },
    });
    expect(planQuestion("What is the latest quote for NVDA?", rm)).toMatchObject({
      readmodel: { kind: "quote", ticker: "NVDA" },
    });
    expect(planQuestion("How many positions are in the portfolio of LTS One?", rm)).toMatchObject({ source: "graph" });
    expect(planQuestion("List my portfolios", { ...ctx, readModels: false })).toEqual({
      unanswerable: expect.stringContaining("read models"),
    });
  });

  test("caller text never reaches SQL: quotes and statements in a question", () => {
    const sql = sqlOf("What was Apple's revenue in 2023'; DROP TABLE companies; --");
    expect(sql).not.toContain("DROP");
    // A ticker-like word is taken only as [A-Z0-9._]+ and quoted: the quote never reaches the SQL.
    expect(sqlOf("How many news articles mention O'BRIEN?")).toBe(
      "SELECT count(*) AS articles FROM news_mentions WHERE ticker = 'BRIEN'",
    );
  });

  test("says plainly when it cannot answer", () => {
    for (const q of [
      "What is the weather in Paris today?",
      "Who is the best CEO in the world?",
      "What will Apple's stock price be next year?",
    ]) {
      expect(planQuestion(q, ctx)).toEqual({ unanswerable: expect.stringContaining("could not map this question") });
    }
    expect(planQuestion("top companies by revenue", ctx)).toEqual({
      unanswerable: expect.stringContaining("Which fiscal year?"),
    });
  });
});
