/**
 * Schema of the public financial data (global, not per tenant): companies, filings, raw
 * XBRL facts, standardised income statements, materialised ratios, the latest value per
 * concept, and revenue segments. Ids are namespaced "fin:". The ratio and income columns
 * are the domain's field lists (spec 2.13, 2.14). A shipped migration must never change,
 * so migrations.test.ts pins the SHA-256 of the generated SQL: a list edit that would
 * alter this migration fails there and belongs in a new migration instead.
 */
import { INCOME_FIELDS, RATIO_FIELDS } from "../../domain/financials/fields.ts";
import type { Migration } from "../../domain/ports.ts";

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
    ${INCOME_FIELDS.map((c) => `${c} ${num}`).join(",\n    ")},
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
    ${RATIO_FIELDS.map((c) => `${c} ${num}`).join(",\n    ")},
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
