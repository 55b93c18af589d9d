/** The planner's inputs and outputs (plan.ts): the tenant's companies and tables, and the plans. */
import type { GraphValue } from "../graph/ports.ts";

/** A company of the tenant's `companies` table. */
export interface KnownCompany {
  cik: string;
  ticker: string | null;
  name: string;
  sector: string | null;
  industry: string | null;
}

export interface PlanContext {
  /** The namespace's lakehouse tables (lower-case). */
  tables: ReadonlySet<string>;
  companies: KnownCompany[];
  /** Whether the graph is there to ask. */
  graph: boolean;
  /** Whether the tenant's real-time `market_bars_daily` table is there to read. */
  timeseries: boolean;
  /** Whether the relational read models (pm.*, md.*) are there to read. */
  readModels?: boolean;
}

/** A question over the tenant's read models (pm.portfolios, pm.holdings, md.latest_quotes). */
export type ReadModelAsk =
  | { kind: "portfolios"; of: "portfolio" | "watchlist" | null }
  | { kind: "holdings"; name: string }
  | { kind: "holders"; ticker: string }
  | { kind: "quote"; ticker: string };

export type Agg = "avg" | "min" | "max" | "sum" | "count" | "first" | "last" | "change" | "rows";
export type MarketColumn = "open" | "high" | "low" | "close" | "adj_close" | "volume";

/** A time window over daily bars: [from, to) in UTC dates (YYYY-MM-DD), or the last N days of the data. */
export interface MarketWindow {
  symbol: string;
  column: MarketColumn;
  agg: Agg;
  range: { from: string; to: string } | { lastDays: number };
}

export type Plan =
  | { source: "lakehouse"; sql: string; explanation: string }
  | { source: "graph"; cypher: string; params: Record<string, GraphValue>; explanation: string }
  | { source: "timeseries"; market: MarketWindow; explanation: string }
  | { source: "readmodel"; readmodel: ReadModelAsk; explanation: string };

export type PlanOutcome = Plan | { unanswerable: string };
