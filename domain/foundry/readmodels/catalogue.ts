/**
 * The relational read models (spec 1.9): every schema, table and column, the one fixed
 * catalogue. Migrations (adapters/controlplane/readmodel-migrations.ts), the read port's
 * identifier checks, the refresh job and GET /v1/foundry/readmodels all derive from it;
 * docs/decisions.md ("Relational read models") documents it.
 *
 * - `scope: "public"` tables (ci.*) hold the installation's public financial data once,
 *   with no tenant column: every tenant's view is all of it.
 * - `scope: "tenant"` tables carry `tenant_id` on every row; every read injects
 *   `tenant_id = ?` with the caller's tenant.
 * - `source: "refresh"` tables are materialised by the refresh job (replaced whole per
 *   tenant, or per installation for public ones); `source: "model"` tables (pm.*) are
 *   the source of truth, written by the portfolio endpoints.
 */
import { INCOME_FIELDS, RATIO_FIELDS } from "../../financials/fields.ts";

export const READ_MODEL_SCHEMAS = ["ci", "dm", "pm", "md"] as const;
export type ReadModelSchema = (typeof READ_MODEL_SCHEMAS)[number];

/** Column types: dates and instants are ISO-8601 text (lexical order is time order) in both dialects. */
export type ReadModelType = "text" | "integer" | "bigint" | "double" | "boolean" | "date" | "timestamp";

export interface ReadModelColumn {
  name: string;
  type: ReadModelType;
  nullable: boolean;
}

export interface ReadModelTable {
  schema: ReadModelSchema;
  table: string;
  description: string;
  scope: "public" | "tenant";
  source: "refresh" | "model";
  columns: ReadModelColumn[];
  /** The primary key (tenant_id included for tenant tables); empty: none. */
  key: string[];
  /** Extra indexes (column lists). */
  indexes: string[][];
}

const req = (name: string, type: ReadModelType): ReadModelColumn => ({ name, type, nullable: false });
const opt = (name: string, type: ReadModelType): ReadModelColumn => ({ name, type, nullable: true });
const TENANT = req("tenant_id", "text");

export const READ_MODEL_TABLES: readonly ReadModelTable[] = [
  {
    schema: "ci",
    table: "companies",
    description: "Companies with ingested SEC data (one row per CIK)",
    scope: "public",
    source: "refresh",
    columns: [
      req("cik", "text"),
      opt("ticker", "text"),
      opt("name", "text"),
      opt("tickers", "text"),
      opt("exchange", "text"),
      opt("exchanges", "text"),
      opt("sic", "text"),
      opt("sector", "text"),
      opt("industry", "text"),
      opt("fiscal_year_end", "text"),
      opt("state_of_incorporation", "text"),
    ],
    key: ["cik"],
    indexes: [["ticker"]],
  },
  {
    schema: "ci",
    table: "income_statements",
    description: "Standardised income statements (spec 2.14), annual and quarterly",
    scope: "public",
    source: "refresh",
    columns: [
      req("cik", "text"),
      opt("ticker", "text"),
      req("fiscal_year", "integer"),
      req("fiscal_period", "text"),
      opt("period_type", "text"),
      opt("period_end", "date"),
      opt("accession_number", "text"),
      ...INCOME_FIELDS.map((f) => opt(f, "double")),
    ],
    key: [],
    indexes: [["cik", "fiscal_year"], ["ticker"]],
  },
  {
    schema: "ci",
    table: "ratios",
    description: "Financial ratios (spec 2.13), annual and quarterly",
    scope: "public",
    source: "refresh",
    columns: [
      req("cik", "text"),
      opt("ticker", "text"),
      req("fiscal_year", "integer"),
      req("fiscal_period", "text"),
      opt("period_type", "text"),
      opt("period_end", "date"),
      opt("currency", "text"),
      opt("market_cap_is_trailing", "boolean"),
      opt("accession_number", "text"),
      ...RATIO_FIELDS.map((f) => opt(f, "double")),
    ],
    key: [],
    indexes: [["cik", "fiscal_year"], ["ticker"]],
  },
  {
    schema: "ci",
    table: "segments",
    description: "Revenue by segment member (one row per period, axis and member)",
    scope: "public",
    source: "refresh",
    columns: [
      req("cik", "text"),
      opt("ticker", "text"),
      opt("fiscal_year", "integer"),
      opt("fiscal_period", "text"),
      opt("period_type", "text"),
      req("period_start", "date"),
      req("period_end", "date"),
      opt("currency", "text"),
      opt("concept", "text"),
      req("axis", "text"),
      req("member", "text"),
      opt("label", "text"),
      opt("revenue", "double"),
      opt("accession_number", "text"),
    ],
    key: [],
    indexes: [["cik", "period_end"]],
  },
  {
    schema: "dm",
    table: "documents",
    description: "Uploaded documents visible tenant-wide (no barrier): metadata only",
    scope: "tenant",
    source: "refresh",
    columns: [
      TENANT,
      req("doc_id", "text"),
      req("filename", "text"),
      req("format", "text"),
      req("doc_type", "text"),
      opt("entity_id", "text"),
      req("uploaded_by", "text"),
      req("uploaded_at", "timestamp"),
      req("chunk_count", "integer"),
    ],
    key: ["tenant_id", "doc_id"],
    indexes: [["tenant_id", "entity_id"]],
  },
  {
    schema: "dm",
    table: "chunks",
    description: "Chunks of the documents in dm.documents: metadata without text",
    scope: "tenant",
    source: "refresh",
    columns: [
      TENANT,
      req("chunk_id", "text"),
      req("doc_id", "text"),
      req("chunk_index", "integer"),
      opt("page", "integer"),
      req("char_count", "integer"),
      opt("doc_type", "text"),
      opt("entity_id", "text"),
      req("created_at", "timestamp"),
    ],
    key: ["tenant_id", "chunk_id"],
    indexes: [["tenant_id", "doc_id", "chunk_index"]],
  },
  {
    schema: "dm",
    table: "editor_documents",
    description: "Collaborative documents shared tenant-wide (general access viewer or editor): metadata only",
    scope: "tenant",
    source: "refresh",
    columns: [
      TENANT,
      req("doc_id", "text"),
      req("title", "text"),
      req("owner_id", "bigint"),
      req("general_access", "text"),
      req("version", "integer"),
      req("created_at", "timestamp"),
      req("updated_at", "timestamp"),
    ],
    key: ["tenant_id", "doc_id"],
    indexes: [],
  },
  {
    schema: "pm",
    table: "portfolios",
    description: "Portfolios and watchlists",
    scope: "tenant",
    source: "model",
    columns: [
      TENANT,
      req("portfolio_id", "text"),
      req("name", "text"),
      req("kind", "text"),
      req("description", "text"),
      req("created_by", "text"),
      req("created_at", "timestamp"),
      req("updated_at", "timestamp"),
    ],
    key: ["tenant_id", "portfolio_id"],
    indexes: [["tenant_id", "created_at"]],
  },
  {
    schema: "pm",
    table: "holdings",
    description: "The holdings of each portfolio or watchlist (one row per ticker)",
    scope: "tenant",
    source: "model",
    columns: [
      TENANT,
      req("portfolio_id", "text"),
      req("ticker", "text"),
      opt("cik", "text"),
      opt("quantity", "double"),
      opt("weight", "double"),
      opt("cost_basis", "double"),
      req("position", "integer"),
    ],
    key: ["tenant_id", "portfolio_id", "ticker"],
    indexes: [["tenant_id", "ticker"]],
  },
  {
    schema: "md",
    table: "daily_bars",
    description: "Daily OHLCV bars from the tenant's real-time table market_bars_daily (hot and tiered)",
    scope: "tenant",
    source: "refresh",
    columns: [
      TENANT,
      req("ticker", "text"),
      opt("cik", "text"),
      req("date", "date"),
      opt("open", "double"),
      opt("high", "double"),
      opt("low", "double"),
      opt("close", "double"),
      opt("adj_close", "double"),
      opt("volume", "bigint"),
    ],
    key: ["tenant_id", "ticker", "date"],
    indexes: [],
  },
  {
    schema: "md",
    table: "latest_quotes",
    description: "The newest quote per ticker from the tenant's real-time table market_quotes",
    scope: "tenant",
    source: "refresh",
    columns: [
      TENANT,
      req("ticker", "text"),
      opt("cik", "text"),
      opt("bid", "double"),
      opt("ask", "double"),
      opt("mid", "double"),
      req("quoted_at", "timestamp"),
    ],
    key: ["tenant_id", "ticker"],
    indexes: [],
  },
];

/** The table's catalogue entry, or null when the pair is not a read model. */
export function readModelTable(schema: string, table: string): ReadModelTable | null {
  return READ_MODEL_TABLES.find((t) => t.schema === schema && t.table === table) ?? null;
}

export function readModelName(t: Pick<ReadModelTable, "schema" | "table">): string {
  return `${t.schema}.${t.table}`;
}
