/**
 * The lakehouse as the service sees it: the lab's gateway (embedded: PyIceberg SQL catalog
 * + DuckDB; at scale: Iceberg REST catalog + Spark SQL). HTTP contract in docs/lakehouse-gateway.md.
 */
import type { JobQueue, Tenant } from "../ports.ts";
import type { SecretBox } from "../secret-box.ts";
import type { NamespacePort } from "../tenants/namespaces.ts";
import type { Catalog, CatalogUpsert, NewSyncTarget, SourceSchema, SyncStatePatch, SyncTarget } from "./catalog.ts";

export type LakehouseHealth =
  | { status: "ok"; catalog: string; engine: string; warehouse: string }
  | { status: "unavailable"; error: string };

export interface LakehouseColumn {
  name: string;
  /** Iceberg primitive type: boolean, int, long, float, double, decimal(p,s), date, timestamp, timestamptz, string, binary. */
  type: string;
  nullable?: boolean;
}

export interface LakehouseRows {
  columns: LakehouseColumn[];
  rows: unknown[][];
}

export interface WriteRequest {
  mode: "overwrite" | "upsert" | "append";
  /** Required for upsert: rows replace existing rows with equal keys. */
  key_columns?: string[];
  columns: LakehouseColumn[];
  rows: unknown[][];
  /** Stored on the Iceberg snapshot summary (e.g. the sync watermark). */
  snapshot_properties?: Record<string, string>;
}

export interface WriteResult {
  snapshot_id: number | null;
  rows_written: number;
}

export interface LakehousePort extends NamespacePort {
  health(): Promise<LakehouseHealth>;
  listTables(namespace: string): Promise<string[]>;
  tableSchema(namespace: string, table: string): Promise<LakehouseColumn[]>;
  preview(namespace: string, table: string, limit: number): Promise<LakehouseRows>;
  sql(namespace: string, statement: string): Promise<LakehouseRows>;
  write(namespace: string, table: string, req: WriteRequest): Promise<WriteResult>;
  /** The current snapshot's summary properties, or null when the table does not exist. */
  snapshotProperties(namespace: string, table: string): Promise<Record<string, string> | null>;
}

/** Lakehouse catalogs and sync targets in the control plane; a contract suite runs it against SQLite and Postgres. */
export interface LakehouseCatalogStore {
  /**
   * Creates or updates the tenant's catalog of that name (same id on update), makes it the
   * tenant's active catalog and deactivates the tenant's others, in one transaction.
   */
  upsertCatalog(c: CatalogUpsert): Promise<Catalog>;
  /** Inserts the catalog unless the tenant has one of that name; returns what is stored. */
  ensureCatalog(c: CatalogUpsert): Promise<Catalog>;
  getCatalog(tenantId: string, catalogName: string): Promise<Catalog | null>;
  /** The tenant's active catalog, or null. */
  getActiveCatalog(tenantId: string): Promise<Catalog | null>;
  /** Newest provisioned first; one tenant's when tenantId is given. */
  listCatalogs(tenantId?: string): Promise<Catalog[]>;
  /** Re-encrypts every stored secret for which `stale` holds; returns how many changed. */
  rotateCatalogSecrets(
    stale: (ciphertext: string) => boolean,
    rotate: (ciphertext: string, context: string) => { ciphertext: string; keyId: string },
  ): Promise<number>;

  /** Throws AppError conflict when the tenant already syncs into that Iceberg table. */
  createSyncTarget(t: NewSyncTarget): Promise<SyncTarget>;
  getSyncTarget(id: string): Promise<SyncTarget | null>;
  /** Oldest first; one tenant's when tenantId is given. */
  listSyncTargets(tenantId?: string): Promise<SyncTarget[]>;
  updateSyncState(id: string, patch: SyncStatePatch): Promise<SyncTarget>;
}

/** A relational source table's column, with its Iceberg type (pipelines/lakehouse/sync/source.ts). */
export interface SourceColumn {
  name: string;
  /** Iceberg primitive type (LakehouseColumn.type). */
  type: string;
  nullable: boolean;
}

/** The read-model tables a sync target may replicate, as the sync pipeline reads them. */
export interface SourceTablePort {
  /** The table's columns in order, or null when the table does not exist. */
  describe(schema: SourceSchema, table: string): Promise<SourceColumn[] | null>;
  /** Whether a column of that Iceberg type can carry an incremental watermark. */
  isCursorType(icebergType: string): boolean;
}

/** Who owns a tenant id (the control plane). */
export interface TenantLookup {
  getTenant(tenantId: string): Promise<Tenant | null>;
}

/** Encrypts storage secrets at rest (domain/secret-box.ts). */
export type CatalogSecretSealer = Pick<SecretBox, "encrypt" | "activeKeyId">;

/** Where sync runs are queued and looked up (the "lakehouse-sync" queue, ./sync-job.ts). */
export type SyncJobQueue = Pick<JobQueue, "enqueue" | "getJob">;
