/**
 * Fundamentals as served (spec 2.13, 2.14): standardised statements and ratios derived
 * from SEC XBRL by our own pipeline (pipelines/financials/sec). The record shapes here are
 * what the read and write ports (ports.ts) carry; adapters implement those over SQL.
 */

export const PERIODS = ["FY", "Q1", "Q2", "Q3", "Q4"] as const;
export type FiscalPeriod = (typeof PERIODS)[number];

/** The numeric fields of an income statement record (spec 2.14), in the spec's order. */
export const INCOME_FIELDS = [
  "revenue",
  "cost_of_revenue",
  "gross_profit",
  "operating_expense",
  "research_and_development",
  "selling_general_and_administrative_expenses",
  "operating_income",
  "ebit",
  "net_income",
  "earnings_per_share",
  "earnings_per_share_diluted",
  "weighted_average_shares",
  "weighted_average_shares_diluted",
] as const;
export type IncomeField = (typeof INCOME_FIELDS)[number];

/** Element of GET /v1/financials/{cik}/income (spec 2.14). */
export type IncomeStatementRecord = {
  cik: string | null;
  ticker: string | null;
  /** FY, Q1..Q4 */
  fiscal_period_code: string | null;
  /** "annual" or "quarterly" */
  period_type: string | null;
  report_period: string | null;
  fiscal_year: number | null;
  accession_number: string;
} & Record<IncomeField, number | null>;

/**
 * The ratio fields (spec 2.13), in the spec's order. This list and INCOME_FIELDS are the
 * one definition: the record types, the response schemas, the export sheets and the SQL
 * columns (adapters/financials/migrations.ts) are all derived from them.
 */
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
  facts: {
    concept: string;
    taxonomy: string;
    unit: string;
    value: number;
    period_end: string;
    accession_number: string;
  }[];
}

/** One breakdown member's revenue within a segment record. */
export interface RevenueSegment {
  /** XBRL member QName, e.g. "aapl:IPhoneMember". */
  member: string;
  /** Readable name derived from the member (instances carry no labels). */
  label: string;
  revenue: number;
}

/**
 * Element of GET /v1/financials/{cik}/revenue-segments (shape ours; spec 4.4 names the
 * endpoint only): one period and one breakdown axis with its members' revenue.
 */
export interface RevenueSegmentRecord {
  cik: string;
  ticker: string | null;
  /** Null when the source (e.g. a flattened fact table) does not identify its filing. */
  accession_number: string | null;
  fiscal_year: number | null;
  fiscal_period: string | null;
  /** "annual" or "quarterly" */
  period_type: string;
  period_start: string;
  report_period: string;
  currency: string;
  /** The revenue concept the members report, e.g. us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax. */
  concept: string;
  /** The breakdown axis QName, e.g. "srt:ProductOrServiceAxis". */
  axis: string;
  segments: RevenueSegment[];
}

export interface StatementQuery {
  fiscal_year?: number;
  period?: FiscalPeriod;
  limit: number;
}

/** CIKs are accepted with or without leading zeros; stored as 10-digit strings. */
export function normalizeCik(raw: string): string | null {
  const digits = raw.trim();
  if (!/^\d{1,10}$/.test(digits)) return null;
  return digits.padStart(10, "0");
}

// ---------------------------------------------------------------------------
// Write side, used by the SEC ingest pipeline only.

export type CompanyProfile = Omit<CompanyFacts, "facts">;

export interface FilingRow {
  accession_number: string;
  form: string;
  filing_date: string;
  report_date: string | null;
  primary_document: string | null;
}

/** A raw XBRL fact as stored (companyfacts shape). */
export interface StoredFact {
  taxonomy: string;
  concept: string;
  unit: string;
  start: string | null;
  end: string;
  val: number;
  accn: string;
  fy: number | null;
  fp: string | null;
  form: string;
  filed: string;
  frame: string | null;
}

export interface StoredSegment {
  accession_number: string | null;
  concept: string;
  axis: string;
  member: string;
  label: string;
  period_start: string;
  period_end: string;
  fiscal_year: number | null;
  fiscal_period: string | null;
  period_type: "annual" | "quarterly";
  value: number;
  currency: string;
}

/** Everything derived from one companyfacts payload, replaced as a unit. */
export interface CompanyFactsBundle {
  cik: string;
  /** Fingerprint of every input (payload, tickers, prices, derivation version). */
  fingerprint: string;
  facts: StoredFact[];
  latest: StoredFact[];
  income: { record: IncomeStatementRecord; period_start: string; provenance: unknown }[];
  ratios: { record: RatioRecord; provenance: unknown }[];
}
