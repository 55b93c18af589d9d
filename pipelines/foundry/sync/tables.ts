/**
 * The Foundry financial tables: their Iceberg columns and how one source record becomes
 * rows. Keys are the same in every table so datasets can join them: `cik` is the 10-digit
 * zero-padded string the financials area uses, `ticker` is upper case, dates are Iceberg
 * `date`s and instants `timestamptz`. docs/foundry-tables.md documents every column.
 */
import {
  type CompanyProfile,
  type FilingRow,
  INCOME_FIELDS,
  type IncomeStatementRecord,
  RATIO_FIELDS,
  type RatioRecord,
  type RevenueSegmentRecord,
} from "../../../domain/financials/fields.ts";
import type { LakehouseColumn } from "../../../domain/lakehouse/ports.ts";
import type { Article } from "../../../domain/news/types.ts";

export const FOUNDRY_TABLES = [
  "companies",
  "income_statements",
  "financial_ratios",
  "revenue_segments",
  "filings",
  "news",
  "news_mentions",
  "market_daily",
] as const;
export type FoundryTable = (typeof FOUNDRY_TABLES)[number];

const req = (name: string, type: string): LakehouseColumn => ({ name, type, nullable: false });
const opt = (name: string, type: string): LakehouseColumn => ({ name, type, nullable: true });

export const COLUMNS: Record<FoundryTable, LakehouseColumn[]> = {
  companies: [
    req("cik", "string"),
    opt("ticker", "string"),
    opt("name", "string"),
    opt("tickers", "string"),
    opt("exchange", "string"),
    opt("exchanges", "string"),
    opt("sic", "string"),
    opt("sector", "string"),
    opt("industry", "string"),
    opt("fiscal_year_end", "string"),
    opt("state_of_incorporation", "string"),
  ],
  income_statements: [
    req("cik", "string"),
    opt("ticker", "string"),
    req("fiscal_year", "int"),
    req("fiscal_period", "string"),
    opt("period_type", "string"),
    opt("period_end", "date"),
    opt("accession_number", "string"),
    ...INCOME_FIELDS.map((f) => opt(f, "double")),
  ],
  financial_ratios: [
    req("cik", "string"),
    opt("ticker", "string"),
    req("fiscal_year", "int"),
    req("fiscal_period", "string"),
    opt("period_type", "string"),
    opt("period_end", "date"),
    opt("currency", "string"),
    opt("market_cap_is_trailing", "boolean"),
    opt("accession_number", "string"),
    ...RATIO_FIELDS.map((f) => opt(f, "double")),
  ],
  revenue_segments: [
    req("cik", "string"),
    opt("ticker", "string"),
    opt("fiscal_year", "int"),
    opt("fiscal_period", "string"),
    opt("period_type", "string"),
    req("period_start", "date"),
    req("period_end", "date"),
    opt("currency", "string"),
    opt("concept", "string"),
    req("axis", "string"),
    req("member", "string"),
    opt("label", "string"),
    opt("revenue", "double"),
    opt("accession_number", "string"),
  ],
  filings: [
    req("cik", "string"),
    opt("ticker", "string"),
    req("accession_number", "string"),
    opt("form", "string"),
    opt("filed_at", "date"),
    opt("period", "date"),
    opt("primary_document", "string"),
  ],
  news: [
    req("article_id", "string"),
    opt("published_at", "timestamptz"),
    opt("ingested_at", "timestamptz"),
    opt("title", "string"),
    opt("url", "string"),
    opt("source_name", "string"),
    opt("source_type", "string"),
    opt("snippet", "string"),
    opt("tickers", "string"),
    opt("company_names", "string"),
    opt("categories", "string"),
    opt("country_codes", "string"),
    opt("sentiment_label", "string"),
    opt("sentiment_score", "double"),
    opt("impact_score", "double"),
    opt("impact_label", "string"),
  ],
  news_mentions: [
    req("article_id", "string"),
    req("ticker", "string"),
    opt("cik", "string"),
    opt("published_at", "timestamptz"),
    opt("sentiment_label", "string"),
    opt("sentiment_score", "double"),
    opt("impact_score", "double"),
  ],
  market_daily: [
    req("ticker", "string"),
    opt("cik", "string"),
    req("date", "date"),
    opt("open", "double"),
    opt("high", "double"),
    opt("low", "double"),
    opt("close", "double"),
    opt("adj_close", "double"),
    opt("volume", "long"),
  ],
};

/** The columns that identify a row (rows are written sorted by them, so a rerun writes the same rows in the same order). */
export const KEYS: Record<FoundryTable, string[]> = {
  companies: ["cik"],
  income_statements: ["cik", "fiscal_year", "fiscal_period"],
  financial_ratios: ["cik", "fiscal_year", "fiscal_period"],
  revenue_segments: ["cik", "period_start", "period_end", "axis", "member"],
  filings: ["cik", "accession_number"],
  news: ["article_id"],
  news_mentions: ["article_id", "ticker"],
  market_daily: ["ticker", "date"],
};

// -- keys --------------------------------------------------------------------------------

/** The 10-digit zero-padded CIK, or null when the value is not a CIK. */
export function cikKey(v: string | number | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const digits = String(v).trim();
  return /^\d{1,10}$/.test(digits) ? digits.padStart(10, "0") : null;
}

/** Upper-case ticker, or null when empty. */
export function tickerKey(v: string | null | undefined): string | null {
  const t = (v ?? "").trim().toUpperCase();
  return t === "" ? null : t;
}

/** `YYYY-MM-DD` from a date or an ISO instant, or null. */
export function dateOf(v: string | null | undefined): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(v ?? "");
  return m ? (m[1] as string) : null;
}

const joined = (xs: readonly string[], sep = ",") => (xs.length === 0 ? null : xs.join(sep));

/**
 * The SEC's SIC division of a code (the "sector"): the ten divisions of the Standard
 * Industrial Classification manual, by the code's first two digits.
 */
export function sicSector(sic: string | null): string | null {
  const n = Number.parseInt((sic ?? "").trim().slice(0, 2), 10);
  if (!Number.isFinite(n) || !/^\d{2,4}$/.test((sic ?? "").trim())) return null;
  if (n >= 1 && n <= 9) return "Agriculture, Forestry and Fishing";
  if (n >= 10 && n <= 14) return "Mining";
  if (n >= 15 && n <= 17) return "Construction";
  if (n >= 20 && n <= 39) return "Manufacturing";
  if (n >= 40 && n <= 49) return "Transportation, Communications, Electric, Gas and Sanitary Services";
  if (n >= 50 && n <= 51) return "Wholesale Trade";
  if (n >= 52 && n <= 59) return "Retail Trade";
  if (n >= 60 && n <= 67) return "Finance, Insurance and Real Estate";
  if (n >= 70 && n <= 89) return "Services";
  if (n >= 91 && n <= 99) return "Public Administration";
  return null;
}

// -- rows --------------------------------------------------------------------------------

export function companyRow(c: CompanyProfile): unknown[] {
  const tickers = [...new Set(c.tickers.map(tickerKey).filter((t): t is string => t !== null))];
  const sic = c.sic?.trim() || null;
  return [
    cikKey(c.cik),
    tickerKey(c.ticker) ?? tickers[0] ?? null,
    c.name,
    joined(tickers),
    c.exchanges[0] ?? null,
    joined(c.exchanges),
    sic,
    sicSector(sic),
    c.sic_description,
    c.fiscal_year_end,
    c.state_of_incorporation,
  ];
}

export function incomeRow(cik: string, r: IncomeStatementRecord): unknown[] {
  return [
    cik,
    tickerKey(r.ticker),
    r.fiscal_year,
    r.fiscal_period_code,
    r.period_type,
    dateOf(r.report_period),
    r.accession_number,
    ...INCOME_FIELDS.map((f) => r[f]),
  ];
}

export function ratioRow(cik: string, r: RatioRecord): unknown[] {
  return [
    cik,
    tickerKey(r.ticker),
    r.fiscal_year,
    r.fiscal_period,
    r.period,
    dateOf(r.report_period),
    r.currency,
    r.market_cap_is_trailing,
    r.accession_number,
    ...RATIO_FIELDS.map((f) => r[f]),
  ];
}

/** One row per member of the record's breakdown. */
export function segmentRows(cik: string, r: RevenueSegmentRecord): unknown[][] {
  return r.segments.map((s) => [
    cik,
    tickerKey(r.ticker),
    r.fiscal_year,
    r.fiscal_period,
    r.period_type,
    dateOf(r.period_start),
    dateOf(r.report_period),
    r.currency,
    r.concept,
    r.axis,
    s.member,
    s.label,
    s.revenue,
    r.accession_number,
  ]);
}

export function filingRow(cik: string, ticker: string | null, f: FilingRow): unknown[] {
  return [cik, ticker, f.accession_number, f.form, dateOf(f.filing_date), dateOf(f.report_date), f.primary_document];
}

export function newsRow(a: Article): unknown[] {
  const tickers = [...new Set(a.company_tickers.map(tickerKey).filter((t): t is string => t !== null))];
  return [
    a.article_id,
    a.published_at,
    a.ingested_at,
    a.title,
    a.url,
    a.source_name,
    a.source_type,
    a.snippet,
    joined(tickers),
    // Company names may hold commas ("Apple, Inc."), so they are joined with "; ".
    joined(a.company_names, "; "),
    joined(a.categories),
    joined(a.country_codes),
    a.sentiment_label,
    a.sentiment_score,
    a.impact_score,
    a.impact_label,
  ];
}

/** One row per distinct ticker the article mentions; `cik` from the companies' ticker map. */
export function mentionRows(a: Article, cikOfTicker: ReadonlyMap<string, string>): unknown[][] {
  const tickers = [...new Set(a.company_tickers.map(tickerKey).filter((t): t is string => t !== null))];
  return tickers.map((t) => [
    a.article_id,
    t,
    cikOfTicker.get(t) ?? null,
    a.published_at,
    a.sentiment_label,
    a.sentiment_score,
    a.impact_score,
  ]);
}

export interface DailyBar {
  ticker: string;
  date: string;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  adj_close: number | null;
  volume: number | string | null;
}

export function marketRow(b: DailyBar, cikOfTicker: ReadonlyMap<string, string>): unknown[] {
  return [b.ticker, cikOfTicker.get(b.ticker) ?? null, b.date, b.open, b.high, b.low, b.close, b.adj_close, b.volume];
}

/** Sorts rows by the table's key columns (strings and numbers; nulls first) and keeps one row per key, in place. */
export function sortRows(table: FoundryTable, rows: unknown[][]): unknown[][] {
  const cols = COLUMNS[table].map((c) => c.name);
  const idx = KEYS[table].map((k) => cols.indexOf(k));
  const cmp = (a: unknown, b: unknown): number => {
    if (a === b) return 0;
    if (a === null || a === undefined) return -1;
    if (b === null || b === undefined) return 1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    const [x, y] = [String(a), String(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const byKey = (a: unknown[], b: unknown[]): number => {
    for (const i of idx) {
      const c = cmp(a[i], b[i]);
      if (c !== 0) return c;
    }
    return 0;
  };
  // Equal keys (a bar ingested twice) fall back to the whole row, so the survivor is always the same one.
  rows.sort((a, b) => byKey(a, b) || cmp(JSON.stringify(a), JSON.stringify(b)));
  let n = 0;
  for (const r of rows) if (n === 0 || byKey(rows[n - 1] as unknown[], r) !== 0) rows[n++] = r;
  rows.length = n;
  return rows;
}
