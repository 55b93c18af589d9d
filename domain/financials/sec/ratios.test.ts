import { describe, expect, test } from "bun:test";
import { fixtureFacts } from "../../../test/sec-fixture.ts";
import { buildCompanyModel } from "./company.ts";
import { buildFundamentals } from "./fundamentals.ts";
import type { PriceSeries } from "./prices.ts";
import { computeRatios, type RatioRow, toRatioRecord } from "./ratios.ts";
import type { Split } from "./splits.ts";

function ratiosOf(prices: PriceSeries[] = [], splits?: Split[]): Map<string, RatioRow> {
  const m = buildCompanyModel(fixtureFacts());
  const fundamentals = buildFundamentals(m.resolver, m.statements, m.currency, m.splits);
  const rows = computeRatios({
    statements: m.statements,
    fundamentals,
    currency: m.currency,
    splits: splits ?? m.splits,
    prices,
  });
  return new Map(rows.map((r) => [r.period.key, r]));
}

const series = (points: [string, number][], basisDate?: string): PriceSeries => ({
  ticker: "ACME",
  interval: "daily",
  basisDate: basisDate ?? points.at(-1)?.[0] ?? "",
  points: points.map(([date, close]) => ({ date, close })),
  source: "test.csv",
});

describe("ratios", () => {
  const fy = ratiosOf().get("2022-FY") as RatioRow;

  test("margins, returns, turnovers and liquidity of a fiscal year", () => {
    const v = fy.values;
    expect(v.gross_margin).toBeCloseTo(190 / 460, 12);
    expect(v.operating_margin).toBeCloseTo(60 / 460, 12);
    expect(v.net_margin).toBeCloseTo(30 / 460, 12);
    expect(v.return_on_equity).toBeCloseTo(30 / 700, 12);
    expect(v.return_on_assets).toBeCloseTo(30 / 1200, 12);
    expect(v.asset_turnover).toBeCloseTo(460 / 1200, 12);
    expect(v.receivables_turnover).toBeCloseTo(5, 12);
    expect(v.days_sales_outstanding).toBeCloseTo((92 / 460) * 365, 9);
    expect(v.working_capital_turnover).toBeCloseTo(460 / 250, 12);
    expect(v.current_ratio).toBe(2);
    expect(v.quick_ratio).toBeCloseTo((150 + 92) / 250, 12);
    expect(v.cash_ratio).toBeCloseTo(150 / 250, 12);
    expect(v.operating_cash_flow_ratio).toBeCloseTo(70 / 250, 12);
    expect(v.earnings_per_share).toBe(3);
    expect(v.book_value_per_share).toBe(70);
    expect(v.free_cash_flow_per_share).toBe(5);
  });

  test("missing inputs give null, never zero", () => {
    const v = fy.values;
    for (const k of [
      "inventory_turnover",
      "operating_cycle",
      "debt_to_equity",
      "debt_to_assets",
      "interest_coverage",
      "return_on_invested_capital",
      "payout_ratio",
      "revenue_growth",
      "enterprise_value",
      "price_to_earnings_ratio",
      "peg_ratio",
    ] as const)
      expect(v[k]).toBeNull();
    expect(fy.market_cap_is_trailing).toBeNull();
  });

  test("quarter rows annualise returns with the trailing four quarters and derive quarterly cash flow", () => {
    const rows = ratiosOf();
    const q4 = rows.get("2022-Q4") as RatioRow;
    expect(q4.provenance.ttm_periods).toEqual(["2022-Q1", "2022-Q2", "2022-Q3", "2022-Q4"]);
    expect(q4.values.return_on_equity).toBeCloseTo(30 / 700, 12);
    expect(q4.values.net_margin).toBeCloseTo(-6 / 130, 12);
    // OCF Q4 = 70 - 50 (YTD 9 months), capex 20 - 14: free cash flow 14 over 10 shares.
    expect(q4.values.free_cash_flow_per_share).toBeCloseTo(1.4, 12);
    expect(q4.values.days_sales_outstanding).toBeCloseTo((92 / 130) * 92, 9);
    // Q1 has no four quarters behind it.
    expect(rows.get("2022-Q1")?.values.return_on_equity).toBeNull();
    expect(rows.get("2022-Q1")?.values.current_ratio).toBe(2);
  });

  test("valuation at the close on or before the period end", () => {
    const r = ratiosOf([
      series([
        ["2022-12-29", 48],
        ["2022-12-30", 50],
        ["2023-01-03", 60],
      ]),
    ]).get("2022-FY") as RatioRow;
    expect(r.market_cap_is_trailing).toBe(true);
    expect(r.provenance.price).toMatchObject({ date: "2022-12-30", close: 50, split_divisor: 1 });
    expect(r.provenance.market_cap).toBe(500);
    expect(r.values.price_to_earnings_ratio).toBeCloseTo(500 / 30, 12);
    expect(r.values.price_to_book_ratio).toBeCloseTo(500 / 700, 12);
    expect(r.values.price_to_sales_ratio).toBeCloseTo(500 / 460, 12);
    expect(r.values.free_cash_flow_yield).toBeCloseTo(50 / 500, 12);
    // Enterprise value needs debt, which the fixture does not report.
    expect(r.values.enterprise_value).toBeNull();
  });

  test("a close only after the period end is used and flagged as not trailing", () => {
    const r = ratiosOf([
      series([
        ["2023-01-03", 60],
        ["2023-01-04", 61],
      ]),
    ]).get("2022-FY") as RatioRow;
    expect(r.market_cap_is_trailing).toBe(false);
    expect(r.provenance.market_cap).toBe(600);
    expect(ratiosOf([series([["2023-02-01", 60]])]).get("2022-FY")?.market_cap_is_trailing).toBeNull();
  });

  test("prices are restated to the latest split basis", () => {
    const split: Split = { ratio: 2, oldBasisUntil: "2023-06-01", newBasisFrom: "2023-09-01", evidence: 5 };
    const r = ratiosOf([series([["2022-12-30", 50]], "2023-01-31")], [split]).get("2022-FY") as RatioRow;
    expect(r.provenance.price?.split_divisor).toBe(2);
    expect(r.provenance.market_cap).toBe(250);
    const ambiguous = ratiosOf([series([["2022-12-30", 50]], "2023-07-15")], [split]).get("2022-FY");
    expect(ambiguous?.market_cap_is_trailing).toBeNull();
  });

  test("the served record has every spec field", () => {
    const rec = toRatioRecord(fy, "0000999999", "ACME");
    expect(rec).toMatchObject({
      cik: "0000999999",
      ticker: "ACME",
      fiscal_period: "FY",
      period: "annual",
      currency: "USD",
      report_period: "2022-12-31",
      fiscal_year: 2022,
      market_cap_is_trailing: null,
      accession_number: "0000999999-23-000001",
    });
    expect(Object.keys(rec)).toHaveLength(9 + 38);
  });
});
