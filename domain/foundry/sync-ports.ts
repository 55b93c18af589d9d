/**
 * What the Foundry sync job (pipelines/foundry/sync/) reads: the installation's financial
 * data (companies, statements, ratios, segments, the filings index), the news store and
 * the tenant's market data, and the lakehouse it writes the tenant's Iceberg tables to.
 * Composition implements these with the existing stores (composition/foundry-sync.ts).
 */
import type {
  CompanyProfile,
  FilingRow,
  IncomeStatementRecord,
  RatioRecord,
  RevenueSegmentRecord,
} from "../financials/fields.ts";
import type { LakehousePort } from "../lakehouse/ports.ts";
import type { NewsPage, NewsQuery } from "../news/ports.ts";
import type { RangeRows, TimeRange } from "../rtdb/tiering.ts";
import type { TenantRef } from "../tenants/namespaces.ts";

/** The public financial data, one company at a time (so a read is bounded by one company's rows). */
export interface FinancialTablesSource {
  /** Every CIK with ingested data (10-digit, zero-padded), ascending. */
  listCiks(): Promise<string[]>;
  company(cik: string): Promise<CompanyProfile | null>;
  /** Every stored income statement record of the company, any order. */
  income(cik: string): Promise<IncomeStatementRecord[]>;
  /** Every stored ratio record of the company, any order. */
  ratios(cik: string): Promise<RatioRecord[]>;
  /** Every revenue segment record of the company (one per period and axis), any order. */
  revenueSegments(cik: string): Promise<RevenueSegmentRecord[]>;
  /** The company's filings index, any order. */
  filings(cik: string): Promise<FilingRow[]>;
}

/** News history, paged newest-ingested first (NewsStore.list). */
export interface NewsArticlesSource {
  list(query: NewsQuery): Promise<NewsPage>;
}

/** The tenant's daily bars in its real-time tables (`market_bars_daily`, pipelines/rtdb/market-ingest.ts). */
export interface MarketBarsSource {
  /** False when the tenant has no daily-bars table (or no time-series namespace). */
  hasDailyBars(t: TenantRef): Promise<boolean>;
  /**
   * Rows with ts in [from, to), hot and tiered, in ts order; payload_too_large when more
   * than `limit` (the caller narrows the range).
   */
  readDailyBars(t: TenantRef, range: TimeRange, limit: number): Promise<RangeRows>;
}

export interface FoundrySyncLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface FoundrySyncDeps {
  financials: FinancialTablesSource;
  news: NewsArticlesSource;
  /** Null when this installation has no real-time tables (the CSV directory option still works). */
  market: MarketBarsSource | null;
  /** Null when no lakehouse gateway is configured: the job then answers unavailable. */
  lakehouse: LakehousePort | null;
  logger?: FoundrySyncLogger;
}
