/**
 * Datasets (spec 2.6, 3.2, 4.9): the spec a caller posts, the record the control plane
 * keeps, and the lineage view. No I/O here.
 */

export const DATASET_STATUSES = ["draft", "building", "ready", "error"] as const;
export type DatasetStatus = (typeof DATASET_STATUSES)[number];

/** Filter operators (values are carried as strings and compared with the column's real type). */
export const FILTER_OPS = ["=", "!=", "<", "<=", ">", ">=", "in", "not in", "like", "is null", "is not null"] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** Time-series aggregations of realtime_cols. */
export const REALTIME_AGGS = ["avg", "sum", "min", "max", "last", "count", "stddev"] as const;
export type RealtimeAgg = (typeof REALTIME_AGGS)[number];

export interface SourceTableSpec {
  table: string;
  /** Defaults to the table name. */
  alias?: string | undefined;
  /** Empty or absent: every column of the table. */
  columns?: string[] | undefined;
}

export interface FilterSpec {
  column: string;
  op: string;
  value: string;
}

export interface JoinSpec {
  left_table: string;
  right_table: string;
  left_col: string;
  right_col: string;
}

export interface GraphFeatureSpec {
  label: string;
  cypher_fragment: string;
  output_column: string;
  /** The dataset column holding the entity key; default: the label's key property (Company -> cik). */
  join_column?: string | undefined;
}

export interface RealtimeColSpec {
  realtime_table: string;
  column: string;
  agg: string;
  window: string;
  /** Default `<agg>_<column>_<window>`. */
  output_column?: string | undefined;
  /**
   * The dataset column holding the entity key; default `ticker` (else `symbol`). It is matched
   * against the time-series table's first SYMBOL column (the market tables' `symbol`).
   */
  join_column?: string | undefined;
}

export interface DatasetSpec {
  name: string;
  description?: string | undefined;
  source_tables: SourceTableSpec[];
  filters?: FilterSpec[] | undefined;
  joins?: JoinSpec[] | undefined;
  graph_features?: GraphFeatureSpec[] | undefined;
  realtime_cols?: RealtimeColSpec[] | undefined;
}

/** The record the control plane keeps (one row per dataset). */
export interface Dataset {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  output_table: string;
  spec: DatasetSpec;
  status: DatasetStatus;
  row_count: number;
  created_at: string;
  last_built_at: string | null;
  /** The generated Spark SQL of the latest build; null before the first. */
  sql: string | null;
  /** Why the latest build failed (status error). */
  error: string | null;
  /** Progress of a running build: a stage and a percentage. */
  progress: { stage: string; percent: number } | null;
  /** Job id of the latest build. */
  build_id: string | null;
}

/** GET /v1/foundry/datasets element (4.9), plus the error and progress of the latest build. */
export function datasetView(d: Dataset) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    output_table: d.output_table,
    row_count: d.row_count,
    status: d.status,
    created_at: d.created_at,
    last_built_at: d.last_built_at,
    error: d.error,
    progress: d.progress,
  };
}

/** GET .../lineage (4.9, exactly). */
export function lineageOf(d: Dataset) {
  const s = d.spec;
  return {
    dataset: d.name,
    output: d.output_table,
    sources: {
      lakehouse_tables: s.source_tables.map((t) => ({ table: t.table, alias: t.alias ?? t.table })),
      graph_features: (s.graph_features ?? []).map((g) => ({ ...g })),
      realtime_cols: (s.realtime_cols ?? []).map((r) => ({ ...r })),
    },
    transforms: {
      filters: (s.filters ?? []).map((f) => ({ column: f.column, op: f.op, value: f.value })),
      joins: (s.joins ?? []).map((j) => ({ ...j })),
    },
  };
}

/** `foundry_<sanitised name>`: lower case, runs of other characters as one `_`, at most 120 characters. */
export function outputTableFor(name: string): string {
  const clean = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 112);
  return `foundry_${clean || "dataset"}`;
}
