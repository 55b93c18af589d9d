/** Contract suite for the financial data store (FinancialsStore): runs unchanged on SQLite and Postgres. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FINANCIALS_MIGRATIONS, SqlFinancialsStore } from "../../adapters/financials/index.ts";
import { migrate } from "../../adapters/sql/index.ts";
import {
  type CompanyFactsBundle,
  type CompanyProfile,
  type IncomeStatementRecord,
  RATIO_FIELDS,
  type RatioRecord,
  type StoredSegment,
} from "../../domain/financials/fields.ts";
import type { FinancialsStore } from "../../domain/financials/ports.ts";
import type { SqlClient } from "../../domain/ports.ts";

const CIK = "0000000042";

function income(fy: number, code: string, end: string, revenue: number | null): IncomeStatementRecord {
  return {
    cik: CIK,
    ticker: "ANSR",
    fiscal_period_code: code,
    period_type: code === "FY" ? "annual" : "quarterly",
    report_period: end,
    fiscal_year: fy,
    accession_number: `0000000042-${fy}-${code}`,
    revenue,
    cost_of_revenue: 10,
    gross_profit: null,
    operating_expense: -3.5,
    research_and_development: null,
    selling_general_and_administrative_expenses: null,
    operating_income: null,
    ebit: null,
    net_income: 1234567890123,
    earnings_per_share: 0.125,
    earnings_per_share_diluted: null,
    weighted_average_shares: 15_744_231_000,
    weighted_average_shares_diluted: null,
  };
}

function ratio(fy: number, code: string, end: string, trailing: boolean | null): RatioRecord {
  const r = {
    cik: CIK,
    ticker: "ANSR",
    fiscal_period: code,
    period: code === "FY" ? "annual" : "quarterly",
    currency: "USD",
    report_period: end,
    fiscal_year: fy,
    market_cap_is_trailing: trailing,
    accession_number: `0000000042-${fy}-${code}`,
  } as RatioRecord;
  RATIO_FIELDS.forEach((f, i) => {
    r[f] = i % 3 === 0 ? null : i / 7;
  });
  return r;
}

const PERIODS: [number, string, string][] = [
  [2023, "Q1", "2023-03-31"],
  [2023, "Q2", "2023-06-30"],
  [2023, "Q3", "2023-09-30"],
  [2023, "Q4", "2023-12-31"],
  [2023, "FY", "2023-12-31"],
  [2024, "Q1", "2024-03-31"],
];

function bundle(fingerprint: string, revenueScale = 1): CompanyFactsBundle {
  const fact = { taxonomy: "us-gaap", concept: "Revenues", unit: "USD", fy: 2023, fp: "FY", form: "10-K", frame: null };
  return {
    cik: CIK,
    fingerprint,
    facts: [
      { ...fact, start: "2023-01-01", end: "2023-12-31", val: 100, accn: "A-1", filed: "2024-02-01" },
      { ...fact, start: null, end: "2023-12-31", val: 7, accn: "A-1", filed: "2024-02-01", concept: "Assets" },
    ],
    latest: [{ ...fact, start: "2023-01-01", end: "2023-12-31", val: 100, accn: "A-1", filed: "2024-02-01" }],
    income: PERIODS.map(([fy, code, end]) => ({
      record: income(fy, code, end, 100 * revenueScale + fy),
      period_start: end,
      provenance: { revenue: { method: "reported" } },
    })),
    ratios: PERIODS.map(([fy, code, end], i) => ({
      record: ratio(fy, code, end, i === 0 ? null : i % 2 === 0),
      provenance: {},
    })),
  };
}

const profile = (over: Partial<CompanyProfile> = {}): CompanyProfile => ({
  cik: CIK,
  name: "Answer Corp",
  ticker: "ANSR",
  tickers: ["ANSR"],
  exchanges: ["Nasdaq"],
  sic: "7372",
  sic_description: "Prepackaged Software",
  fiscal_year_end: "1231",
  state_of_incorporation: "DE",
  ...over,
});

export function runFinancialsStoreContract(
  name: string,
  make: () => Promise<{ sql: SqlClient; cleanup: () => Promise<void> }>,
): void {
  describe(`FinancialsStore contract: ${name}`, () => {
    let sql: SqlClient;
    let store: FinancialsStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ sql, cleanup } = await make());
      await migrate(sql, FINANCIALS_MIGRATIONS);
      await migrate(sql, FINANCIALS_MIGRATIONS);
      store = new SqlFinancialsStore(sql);
      await store.upsertCompany(profile());
      await store.replaceCompanyFacts(bundle("fp-1"));
    });
    afterAll(async () => {
      await sql.close();
      await cleanup();
    });

    test("income: newest first, FY before the Q4 that ends with it, limit and filters", async () => {
      const all = await store.income(CIK, { limit: 40 });
      expect(all.map((r) => `${r.fiscal_year}-${r.fiscal_period_code}`)).toEqual([
        "2024-Q1",
        "2023-FY",
        "2023-Q4",
        "2023-Q3",
        "2023-Q2",
        "2023-Q1",
      ]);
      expect((await store.income(CIK, { limit: 2 })).length).toBe(2);
      expect((await store.income(CIK, { limit: 8, fiscal_year: 2023 })).length).toBe(5);
      expect((await store.income(CIK, { limit: 8, period: "FY" })).map((r) => r.fiscal_year)).toEqual([2023]);
      expect(await store.income(CIK, { limit: 8, fiscal_year: 2023, period: "Q2" })).toHaveLength(1);
      expect(await store.income("0000000001", { limit: 8 })).toEqual([]);
    });

    test("income values keep their types: numbers, nulls, large integers, fractions", async () => {
      const [r] = await store.income(CIK, { limit: 1, fiscal_year: 2023, period: "FY" });
      expect(r).toEqual(income(2023, "FY", "2023-12-31", 2123));
    });

    test("ratios: every spec field, booleans and nulls preserved", async () => {
      const rows = await store.ratios(CIK, { limit: 40 });
      expect(rows).toHaveLength(6);
      const q1 = rows.find((r) => r.fiscal_year === 2023 && r.fiscal_period === "Q1");
      expect(q1).toEqual(ratio(2023, "Q1", "2023-03-31", null));
      const q2 = rows.find((r) => r.fiscal_period === "Q2");
      expect(q2?.market_cap_is_trailing).toBe(false);
      const q3 = rows.find((r) => r.fiscal_period === "Q3");
      expect(q3?.market_cap_is_trailing).toBe(true);
      expect(Object.keys(q1 ?? {}).sort()).toEqual(Object.keys(ratio(2023, "Q1", "x", null)).sort());
    });

    test("a replace swaps every row of the company in one go", async () => {
      await store.replaceCompanyFacts(bundle("fp-2", 2));
      const [r] = await store.income(CIK, { limit: 1, fiscal_year: 2023, period: "FY" });
      expect(r?.revenue).toBe(2223);
      expect((await store.income(CIK, { limit: 40 })).length).toBe(6);
      expect(await store.sourceFingerprint(CIK, "companyfacts")).toBe("fp-2");
      const n = await sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM fin_facts WHERE cik = ?", [CIK]);
      expect(Number(n?.n)).toBe(2);
    });

    test("company facts: profile and latest values", async () => {
      const c = await store.company(CIK);
      expect(c).toEqual({
        ...profile(),
        facts: [
          {
            concept: "Revenues",
            taxonomy: "us-gaap",
            unit: "USD",
            value: 100,
            period_end: "2023-12-31",
            accession_number: "A-1",
          },
        ],
      });
      expect(await store.company("0000000001")).toBeNull();
      expect(await store.listCiks()).toContain(CIK);
    });

    test("upsertCompany: null fields and empty lists keep what is stored", async () => {
      await store.upsertCompany(profile({ name: null, tickers: [], sic: null, ticker: "ANS2" }));
      const c = await store.company(CIK);
      expect(c).toMatchObject({ name: "Answer Corp", tickers: ["ANSR"], sic: "7372", ticker: "ANS2" });
      await store.upsertCompany(profile());
    });

    test("filings: upsert keeps report dates; found by form and report date", async () => {
      await store.upsertFilings(CIK, [
        {
          accession_number: "A-1",
          form: "10-K",
          filing_date: "2024-02-01",
          report_date: "2023-12-31",
          primary_document: "a.htm",
        },
        { accession_number: "A-2", form: "10-Q", filing_date: "2024-05-01", report_date: null, primary_document: null },
        {
          accession_number: "A-2",
          form: "10-Q",
          filing_date: "2024-05-01",
          report_date: "2024-03-31",
          primary_document: null,
        },
      ]);
      await store.upsertFilings(CIK, [
        { accession_number: "A-1", form: "10-K", filing_date: "2024-02-01", report_date: null, primary_document: null },
      ]);
      expect(await store.findFiling(CIK, "10-K", "2023-12-31")).toBe("A-1");
      expect(await store.findFiling(CIK, "10-Q", "2024-03-31")).toBe("A-2");
      expect(await store.findFiling(CIK, "10-Q", "2023-12-31")).toBeNull();
    });

    test("segments: one record per period and axis, newest first, limit counts periods", async () => {
      const seg = (axis: string, member: string, start: string, end: string, value: number): StoredSegment => ({
        accession_number: "A-2",
        concept: "us-gaap:Revenues",
        axis,
        member,
        label: member,
        period_start: start,
        period_end: end,
        fiscal_year: Number(end.slice(0, 4)),
        fiscal_period: "Q1",
        period_type: "quarterly",
        value,
        currency: "USD",
      });
      await store.replaceSegments(CIK, "doc-1", "s-1", [
        seg("srt:ProductOrServiceAxis", "x:A", "2024-01-01", "2024-03-31", 5),
        seg("srt:ProductOrServiceAxis", "x:B", "2024-01-01", "2024-03-31", 9),
        seg("us-gaap:StatementBusinessSegmentsAxis", "x:East", "2024-01-01", "2024-03-31", 14),
        seg("srt:ProductOrServiceAxis", "x:A", "2023-01-01", "2023-03-31", 4),
      ]);
      const recs = await store.revenueSegments(CIK, { limit: 8 });
      expect(recs.map((r) => [r.report_period, r.axis, r.segments.map((s) => s.member)])).toEqual([
        ["2024-03-31", "srt:ProductOrServiceAxis", ["x:B", "x:A"]],
        ["2024-03-31", "us-gaap:StatementBusinessSegmentsAxis", ["x:East"]],
        ["2023-03-31", "srt:ProductOrServiceAxis", ["x:A"]],
      ]);
      expect(recs[0]).toMatchObject({
        cik: CIK,
        ticker: "ANSR",
        accession_number: "A-2",
        currency: "USD",
        fiscal_year: 2024,
      });
      expect((await store.revenueSegments(CIK, { limit: 1 })).length).toBe(2);
      expect((await store.revenueSegments(CIK, { limit: 8, fiscal_year: 2023 })).length).toBe(1);
      expect(await store.sourceFingerprint(CIK, "segments:doc-1")).toBe("s-1");
      await store.replaceSegments(CIK, "doc-1", "s-2", []);
      expect(await store.revenueSegments(CIK, { limit: 8 })).toEqual([]);
    });

    test("fingerprints per source", async () => {
      expect(await store.sourceFingerprint(CIK, "submissions")).toBeNull();
      await store.setFingerprint(CIK, "submissions", "x");
      await store.setFingerprint(CIK, "submissions", "y");
      expect(await store.sourceFingerprint(CIK, "submissions")).toBe("y");
    });
  });
}
