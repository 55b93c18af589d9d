/**
 * Schema of the public financial data (global, not per tenant): companies, filings, raw
 * XBRL facts, standardised income statements, materialised ratios, the latest value per
 * concept, and revenue segments. Ids are namespaced "fin:". The ratio and income columns
 * are the spec's field lists (2.13, 2.14), spelled out so the migration never changes.
 */
import type { Migration } from "../../domain/ports.ts";

export const INCOME_COLUMNS = [
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

export const RATIO_COLUMNS = [
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

const schema = (num: string, bool: string) => `
  CREATE TABLE fin_companies (
    cik TEXT PRIMARY KEY,
    name TEXT,
    ticker TEXT,
    tickers TEXT NOT NULL DEFAULT '[]',
    exchanges TEXT NOT NULL DEFAULT '[]',
    sic TEXT,
    sic_description TEXT,
    fiscal_year_end TEXT,
    state_of_incorporation TEXT
  );
  CREATE TABLE fin_sources (
    cik TEXT NOT NULL,
    source TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (cik, source)
  );
  CREATE TABLE fin_filings (
    cik TEXT NOT NULL,
    accession_number TEXT NOT NULL,
    form TEXT NOT NULL,
    filing_date TEXT NOT NULL,
    report_date TEXT,
    primary_document TEXT,
    PRIMARY KEY (cik, accession_number)
  );
  CREATE INDEX fin_filings_report ON fin_filings (cik, form, report_date);
  CREATE TABLE fin_facts (
    cik TEXT NOT NULL,
    taxonomy TEXT NOT NULL,
    concept TEXT NOT NULL,
    unit TEXT NOT NULL,
    period_start TEXT,
    period_end TEXT NOT NULL,
    val ${num} NOT NULL,
    accession_number TEXT NOT NULL,
    fy INTEGER,
    fp TEXT,
    form TEXT NOT NULL,
    filed TEXT NOT NULL,
    frame TEXT
  );
  CREATE INDEX fin_facts_concept ON fin_facts (cik, taxonomy, concept);
  CREATE TABLE fin_latest_facts (
    cik TEXT NOT NULL,
    taxonomy TEXT NOT NULL,
    concept TEXT NOT NULL,
    unit TEXT NOT NULL,
    value ${num} NOT NULL,
    period_end TEXT NOT NULL,
    accession_number TEXT NOT NULL,
    PRIMARY KEY (cik, taxonomy, concept, unit)
  );
  CREATE TABLE fin_income (
    cik TEXT NOT NULL,
    ticker TEXT,
    fiscal_year INTEGER NOT NULL,
    fiscal_period_code TEXT NOT NULL,
    period_type TEXT NOT NULL,
    period_start TEXT NOT NULL,
    report_period TEXT NOT NULL,
    accession_number TEXT NOT NULL,
    ${INCOME_COLUMNS.map((c) => `${c} ${num}`).join(",\n    ")},
    provenance TEXT NOT NULL,
    PRIMARY KEY (cik, fiscal_year, fiscal_period_code)
  );
  CREATE INDEX fin_income_recent ON fin_income (cik, report_period);
  CREATE TABLE fin_ratios (
    cik TEXT NOT NULL,
    ticker TEXT,
    fiscal_year INTEGER NOT NULL,
    fiscal_period TEXT NOT NULL,
    period TEXT NOT NULL,
    currency TEXT,
    report_period TEXT NOT NULL,
    market_cap_is_trailing ${bool},
    accession_number TEXT NOT NULL,
    ${RATIO_COLUMNS.map((c) => `${c} ${num}`).join(",\n    ")},
    provenance TEXT NOT NULL,
    PRIMARY KEY (cik, fiscal_year, fiscal_period)
  );
  CREATE INDEX fin_ratios_recent ON fin_ratios (cik, report_period);
  CREATE TABLE fin_segments (
    cik TEXT NOT NULL,
    source TEXT NOT NULL,
    accession_number TEXT,
    concept TEXT NOT NULL,
    axis TEXT NOT NULL,
    member TEXT NOT NULL,
    label TEXT NOT NULL,
    period_start TEXT NOT NULL,
    period_end TEXT NOT NULL,
    fiscal_year INTEGER,
    fiscal_period TEXT,
    period_type TEXT NOT NULL,
    value ${num} NOT NULL,
    currency TEXT NOT NULL,
    PRIMARY KEY (cik, source, axis, member, period_start, period_end)
  );
  CREATE INDEX fin_segments_recent ON fin_segments (cik, period_end);
`;

export const FINANCIALS_MIGRATIONS: Migration[] = [
  {
    id: "fin:001_companies_filings_facts_statements",
    sqlite: schema("REAL", "INTEGER"),
    postgres: schema("DOUBLE PRECISION", "BOOLEAN"),
  },
];
