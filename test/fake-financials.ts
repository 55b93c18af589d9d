/**
 * An in-memory FinancialsReader for unit tests of the export builders only; route and
 * end-to-end tests use the real SQL store over ingested SEC data.
 */
import {
  type CompanyFacts,
  type IncomeStatementRecord,
  RATIO_FIELDS,
  type RatioField,
  type RatioRecord,
  type StatementQuery,
} from "../domain/financials/fields.ts";
import type { FinancialsReader } from "../domain/financials/ports.ts";

export function company(cik: string, name: string, ticker: string): CompanyFacts {
  return {
    cik,
    name,
    ticker,
    tickers: [ticker],
    exchanges: ["Nasdaq"],
    sic: "3571",
    sic_description: "Electronic Computers",
    fiscal_year_end: "0930",
    state_of_incorporation: "CA",
    facts: [],
  };
}

export function income(
  cik: string,
  fy: number,
  fp: string,
  reportPeriod: string,
  accession: string,
  values: Partial<IncomeStatementRecord> = {},
): IncomeStatementRecord {
  return {
    cik,
    ticker: null,
    fiscal_period_code: fp,
    period_type: fp === "FY" ? "annual" : "quarterly",
    report_period: reportPeriod,
    fiscal_year: fy,
    accession_number: accession,
    revenue: null,
    cost_of_revenue: null,
    gross_profit: null,
    operating_expense: null,
    research_and_development: null,
    selling_general_and_administrative_expenses: null,
    operating_income: null,
    ebit: null,
    net_income: null,
    earnings_per_share: null,
    earnings_per_share_diluted: null,
    weighted_average_shares: null,
    weighted_average_shares_diluted: null,
    ...values,
  };
}

export function ratios(
  cik: string,
  fy: number,
  fp: string,
  reportPeriod: string,
  accession: string,
  values: Partial<Record<RatioField, number | null>> = {},
): RatioRecord {
  const nums = Object.fromEntries(RATIO_FIELDS.map((f) => [f, values[f] ?? null])) as Record<RatioField, number | null>;
  return {
    cik,
    ticker: null,
    fiscal_period: fp,
    period: fp === "FY" ? "annual" : "quarterly",
    currency: "USD",
    report_period: reportPeriod,
    fiscal_year: fy,
    market_cap_is_trailing: null,
    accession_number: accession,
    ...nums,
  };
}

/** Filters and orders like the port's contract says: period, fiscal_year, newest first, limit. */
export class FakeFinancials implements FinancialsReader {
  constructor(
    private readonly companies: CompanyFacts[],
    private readonly incomes: IncomeStatementRecord[],
    private readonly ratioRecs: RatioRecord[],
  ) {}

  private select<T extends { cik: string | null; fiscal_year: number | null; report_period: string | null }>(
    rows: T[],
    periodOf: (r: T) => string | null,
    cik: string,
    q: StatementQuery,
  ): T[] {
    return rows
      .filter((r) => r.cik === cik)
      .filter((r) => !q.period || periodOf(r) === q.period)
      .filter((r) => q.fiscal_year === undefined || r.fiscal_year === q.fiscal_year)
      .sort((a, b) => (b.report_period ?? "").localeCompare(a.report_period ?? ""))
      .slice(0, q.limit);
  }

  async income(cik: string, q: StatementQuery): Promise<IncomeStatementRecord[]> {
    return this.select(this.incomes, (r) => r.fiscal_period_code, cik, q);
  }

  async ratios(cik: string, q: StatementQuery): Promise<RatioRecord[]> {
    return this.select(this.ratioRecs, (r) => r.fiscal_period, cik, q);
  }

  async company(cik: string): Promise<CompanyFacts | null> {
    return this.companies.find((c) => c.cik === cik) ?? null;
  }

  async listCiks(): Promise<string[]> {
    return this.companies.map((c) => c.cik);
  }
}
