/**
 * Ports of the relational read models (spec 1.9; catalogue.ts lists every table):
 * - ReadModelPort: structured, tenant-filtered reads (the natural-language query helper and
 *   GET /v1/foundry/readmodels use it). Identifiers come only from the fixed catalogue and
 *   are quoted by the adapter; values are bound parameters; tenant tables always get
 *   `tenant_id = ?` with the caller's tenant. No caller ever passes SQL.
 * - ReadModelWriter: what the refresh job writes (a table's rows replaced whole).
 * - PortfolioStore: the pm.* model (portfolios, watchlists and their holdings).
 * - ReadModelSources: what the refresh job reads (the existing stores, wired in composition/).
 */
import type {
  CompanyProfile,
  IncomeStatementRecord,
  RatioRecord,
  RevenueSegmentRecord,
} from "../../financials/fields.ts";
import type { RangeRows, TimeRange } from "../../rtdb/tiering.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import type { ReadModelSchema, ReadModelTable } from "./catalogue.ts";

export const READ_MODEL_OPS = ["=", "!=", "<", "<=", ">", ">=", "like", "in", "is_null", "not_null"] as const;
export type ReadModelOp = (typeof READ_MODEL_OPS)[number];

export type ReadModelValue = string | number | boolean | null;

export interface ReadModelCondition {
  column: string;
  op: ReadModelOp;
  /** An array for `in`; absent for is_null / not_null. */
  value?: ReadModelValue | ReadModelValue[];
}

export interface ReadModelSelect {
  schema: ReadModelSchema;
  table: string;
  /** Absent or empty: every column (tenant_id excluded). */
  columns?: string[];
  where?: ReadModelCondition[];
  order_by?: { column: string; direction?: "asc" | "desc" }[];
  /** 1..10 000; default 100. */
  limit?: number;
}

export interface ReadModelResult {
  columns: string[];
  rows: ReadModelValue[][];
}

export interface ReadModelPort {
  select(t: TenantRef, q: ReadModelSelect): Promise<ReadModelResult>;
  /** Every table's columns, as the catalogue defines them. */
  catalogue(): readonly ReadModelTable[];
  /** Rows per table visible to the tenant (all rows of a public table). */
  counts(t: TenantRef): Promise<Record<string, number>>;
}

export interface ReadModelWriter {
  /**
   * Replaces the rows of a refreshed table in one transaction: the tenant's rows (tenantId
   * given, tenant tables) or all rows (tenantId null, public tables). Rows are in the
   * catalogue's column order, tenant_id excluded. Returns the number written.
   */
  replace(schema: ReadModelSchema, table: string, tenantId: string | null, rows: unknown[][]): Promise<number>;
  /** Records when a table was last refreshed (and how many rows it got). */
  markRefreshed(name: string, tenantId: string | null, rows: number, at: string): Promise<void>;
  refreshedAt(name: string, tenantId: string | null): Promise<{ at: string; rows: number } | null>;
}

// ---------------------------------------------------------------------------
// pm.*: portfolios and watchlists.

export const PORTFOLIO_KINDS = ["portfolio", "watchlist"] as const;
export type PortfolioKind = (typeof PORTFOLIO_KINDS)[number];

export interface Holding {
  ticker: string;
  cik: string | null;
  quantity: number | null;
  weight: number | null;
  cost_basis: number | null;
}

export interface Portfolio {
  id: string;
  name: string;
  kind: PortfolioKind;
  description: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  holdings: Holding[];
}

export interface NewPortfolio {
  id: string;
  tenantId: string;
  name: string;
  kind: PortfolioKind;
  description: string;
  createdBy: string;
  at: string;
  holdings: Holding[];
}

export interface PortfolioStore {
  /** conflict when the tenant already has a portfolio of that name. */
  createPortfolio(p: NewPortfolio): Promise<Portfolio>;
  getPortfolio(tenantId: string, id: string): Promise<Portfolio | null>;
  /** Newest first, holdings included. */
  listPortfolios(tenantId: string): Promise<Portfolio[]>;
  deletePortfolio(tenantId: string, id: string): Promise<boolean>;
  /** Replaces the holdings; null when the portfolio does not exist. */
  replaceHoldings(tenantId: string, id: string, holdings: Holding[], at: string): Promise<Portfolio | null>;
}

export type ReadModelStore = ReadModelPort & ReadModelWriter & PortfolioStore;

// ---------------------------------------------------------------------------
// What the refresh job reads.

/** The public financial data, one company at a time. */
export interface FinancialsSource {
  listCiks(): Promise<string[]>;
  company(cik: string): Promise<CompanyProfile | null>;
  income(cik: string): Promise<IncomeStatementRecord[]>;
  ratios(cik: string): Promise<RatioRecord[]>;
  revenueSegments(cik: string): Promise<RevenueSegmentRecord[]>;
}

export interface DocumentRecord {
  doc_id: string;
  filename: string;
  format: string;
  doc_type: string;
  entity_id: string | null;
  uploaded_by: string;
  uploaded_at: string;
  visibility: string;
  barrier_id: string | null;
}

export interface ChunkRecord {
  chunk_id: string;
  doc_id: string;
  chunk_index: number;
  page: number | null;
  char_count: number;
  doc_type: string | null;
  entity_id: string | null;
  created_at: string;
}

/** The tenant's document index: every document and every chunk's metadata (never text). */
export interface DocumentsSource {
  /** False when the tenant has no document index. */
  ready(t: TenantRef): Promise<boolean>;
  documents(t: TenantRef): Promise<DocumentRecord[]>;
  chunks(t: TenantRef): Promise<ChunkRecord[]>;
}

export interface EditorDocumentRecord {
  doc_id: string;
  title: string;
  owner_id: number;
  general_access: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface EditorDocumentsSource {
  documents(tenantId: string): Promise<EditorDocumentRecord[]>;
}

/** The tenant's real-time tables (hot and tiered). */
export interface RealtimeSource {
  /** False when the tenant has no table of that name (or no time-series namespace). */
  has(t: TenantRef, table: string): Promise<boolean>;
  /** Rows with ts in [from, to); payload_too_large when more than `limit`. */
  read(t: TenantRef, table: string, range: TimeRange, limit: number): Promise<RangeRows>;
}

/** Null members: that source is not wired here, and its tables are left as they are. */
export interface ReadModelSources {
  financials: FinancialsSource | null;
  documents: DocumentsSource | null;
  editor: EditorDocumentsSource | null;
  realtime: RealtimeSource | null;
}

/** Queue of the refresh job (pipelines/foundry/readmodels/). */
export const READ_MODEL_REFRESH_QUEUE = "foundry-readmodels";

export interface RefreshedTable {
  table: string;
  rows: number;
  /** "skipped" when its source is not wired or the tenant has none. */
  status: "refreshed" | "skipped";
}
