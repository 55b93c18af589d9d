/**
 * What the Foundry service needs from engines: the control plane (datasets), the job
 * queue (builds), the lab (dataset builds and Arrow previews over the lakehouse), the
 * graph (./graph/ports.ts) and the time-series tables (graph and time-series features).
 */
import type { LakehouseColumn, LakehouseRows } from "../lakehouse/ports.ts";
import type { JobQueue } from "../ports.ts";
import type { TenantRef } from "../tenants/namespaces.ts";
import type { Dataset, DatasetSpec, DatasetStatus } from "./dataset.ts";

export type { CheckedGraphFeature, GraphPort, GraphValue } from "./graph/ports.ts";

export interface NewDataset {
  tenant_id: string;
  name: string;
  description: string;
  output_table: string;
  spec: DatasetSpec;
}

export interface DatasetPatch {
  status?: DatasetStatus;
  row_count?: number;
  last_built_at?: string | null;
  sql?: string | null;
  error?: string | null;
  progress?: { stage: string; percent: number } | null;
  build_id?: string | null;
}

/** Datasets in the control plane (SQLite and Postgres; a contract suite runs both). */
export interface DatasetStore {
  /** conflict (409) when the tenant has a dataset of that name or output table. */
  createDataset(d: NewDataset): Promise<Dataset>;
  getDataset(tenantId: string, id: string): Promise<Dataset | null>;
  /** Oldest first. */
  listDatasets(tenantId: string): Promise<Dataset[]>;
  /**
   * Applies the patch when the dataset's build id is `buildId` (null: unconditionally);
   * returns the updated record, or null when another build has taken over.
   */
  updateDataset(tenantId: string, id: string, patch: DatasetPatch, buildId?: string | null): Promise<Dataset | null>;
}

/** One dataset build as the lab runs it (docs/foundry.md). */
export interface DatasetBuildRequest {
  namespace: string;
  output_table: string;
  /** The SELECT in each engine's dialect; the lab runs the one of its engine. */
  select: { duckdb: string; spark: string };
  /** The namespace's tables the SELECT reads; the lab exposes only these. */
  tables: string[];
  /** Per-entity feature relations the service computed (graph, time-series), by relation name. */
  relations: { name: string; columns: LakehouseColumn[]; rows: unknown[][] }[];
  /** Stored on the output table's snapshot (dataset id, build id). */
  snapshot_properties: Record<string, string>;
}

export interface DatasetBuildResult {
  rows: number;
  snapshot_id: number | null;
  engine: string;
}

/** The lab's Foundry calls over the lakehouse (adapters/lakehouse/foundry-client.ts). */
export interface FoundryLabPort {
  /** Runs the build and replaces the output table in one commit; bad_request when the engine refuses the SQL. */
  build(req: DatasetBuildRequest, signal?: AbortSignal): Promise<DatasetBuildResult>;
  /** The first `limit` rows of a table, moved as Arrow IPC; not_found when absent. */
  preview(namespace: string, table: string, limit: number): Promise<LakehouseRows>;
  /** A read-only SELECT over the namespace, its result moved as Arrow IPC (the gateway's /sql rules). */
  sql(namespace: string, statement: string): Promise<LakehouseRows>;
  /**
   * The lab's own input checks of a training run over the table (target with one class,
   * all-null features, nothing usable...), without training: validation (422) with the
   * lab's reason, so a run that cannot train is refused before it is queued.
   */
  checkTraining(req: {
    namespace: string;
    table: string;
    target_column: string;
    feature_columns?: string[];
    problem_type?: string | null;
    /** Anomaly runs: the column of known anomalies (beyond the spec). */
    label_column?: string;
  }): Promise<Record<string, unknown>>;
  /** Every table of the namespace with its columns (one call). */
  schemas(namespace: string): Promise<Record<string, LakehouseColumn[]>>;
}

/** Per-entity aggregates over the tenant's real-time tables (time-series features). */
export interface RealtimeFeaturePort {
  /**
   * For each key: `agg(column)` over rows of `table` whose key (its first SYMBOL column) equals the key and
   * whose designated timestamp lies in the `windowMs` before the table's newest row.
   * not_found for an unknown table; validation for an unknown column.
   */
  aggregate(
    t: TenantRef,
    q: { table: string; column: string; agg: string; windowMs: number },
    keys: string[],
  ): Promise<Map<string, number | null>>;
  /** Columns of the tenant's table with their QuestDB types; null when absent. */
  columns(t: TenantRef, table: string): Promise<{ name: string; type: string }[] | null>;
}

/** Where builds are queued (the "foundry-build" queue). */
export type BuildQueue = Pick<JobQueue, "enqueue" | "getJob">;
