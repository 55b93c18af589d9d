/**
 * Fundamentals as served (spec 2.13, 2.14): standardised statements and ratios derived
 * from SEC XBRL by our own pipeline (pipelines/sec-ingest). The read port below is what
 * routes, exports and MCP tools use; adapters implement it over SQL (SQLite and Postgres).
 */

export const PERIODS = ["FY", "Q1", "Q2", "Q3", "Q4"] as const;
export type FiscalPeriod = (typeof PERIODS)[number];

/** Element of GET /v1/financials/{cik}/income (spec 2.14). */
export interface IncomeStatementRecord {
  cik: string | null;
  ticker: string | null;
  /** FY, Q1..Q4 */
  fiscal_period_code: string | null;
  /** "annual" or "quarterly" */
  period_type: string | null;
  report_period: string | null;
  fiscal_year: number | null;
  accession_number: string;
  revenue: number | null;
  cost_of_revenue: number | null;
  gross_profit: number | null;
  operating_expense: number | null;
  research_and_development: number | null;
  selling_general_and_administrative_expenses: number | null;
  operating_income: number | null;
  ebit: number | null;
  net_income: number | null;
  earnings_per_share: number | null;
  earnings_per_share_diluted: number | null;
  weighted_average_shares: number | null;
  weighted_average_shares_diluted: number | null;
}

export const RATIO_FIELDS = [
  "gross_margin",
  "operating_margin",
  "net_margin",
  "return_on_equity",
  "return_on_assets",
  "return_on_invested_capital",
  "asset_turnover",
  "inventory_turnover",
  "receivables_turnover",
  "days_sales_outstanding",
  "operating_cycle",
  "working_capital_turnover",
  "current_ratio",
  "quick_ratio",
  "cash_ratio",
  "operating_cash_flow_ratio",
  "debt_to_equity",
  "debt_to_assets",
  "interest_coverage",
  "revenue_growth",
  "earnings_growth",
  "book_value_growth",
  "earnings_per_share_growth",
  "free_cash_flow_growth",
  "operating_income_growth",
  "ebitda_growth",
  "payout_ratio",
  "earnings_per_share",
  "book_value_per_share",
  "free_cash_flow_per_share",
  "enterprise_value",
  "price_to_earnings_ratio",
  "price_to_book_ratio",
  "price_to_sales_ratio",
  "enterprise_value_to_ebitda_ratio",
  "enterprise_value_to_revenue_ratio",
  "free_cash_flow_yield",
  "peg_ratio",
] as const;
export type RatioField = (typeof RATIO_FIELDS)[number];

/** Element of GET /v1/financials/{cik}/ratios (spec 2.13). */
export type RatioRecord = {
  cik: string | null;
  ticker: string | null;
  fiscal_period: string | null;
  /** "annual" or "quarterly" */
  period: string | null;
  currency: string | null;
  report_period: string | null;
  fiscal_year: number | null;
  market_cap_is_trailing: boolean | null;
  accession_number: string;
} & Record<RatioField, number | null>;

export interface CompanyFacts {
  cik: string;
  name: string | null;
  ticker: string | null;
  tickers: string[];
  exchanges: string[];
  sic: string | null;
  sic_description: string | null;
  fiscal_year_end: string | null;
  state_of_incorporation: string | null;
  /** Latest reported value per concept, with its period and filing. */
  facts: { concept: string; taxonomy: string; unit: string; value: number; period_end: string; accession_number: string }[];
}

export interface StatementQuery {
  fiscal_year?: number;
  period?: FiscalPeriod;
  limit: number;
}

export interface FinancialsReader {
  /** Newest first. */
  income(cik: string, q: StatementQuery): Promise<IncomeStatementRecord[]>;
  ratios(cik: string, q: StatementQuery): Promise<RatioRecord[]>;
  company(cik: string): Promise<CompanyFacts | null>;
  /** Every CIK with ingested data. */
  listCiks(): Promise<string[]>;
}

/** CIKs are accepted with or without leading zeros; stored as 10-digit strings. */
export function normalizeCik(raw: string): string | null {
  const digits = raw.trim();
  if (!/^\d{1,10}$/.test(digits)) return null;
  return digits.padStart(10, "0");
}
