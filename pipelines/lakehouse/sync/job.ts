/**
 * The "lakehouse-sync" job: replicate one relational table into the tenant's Iceberg table.
 *
 * - full_refresh: the whole table in one overwrite, one atomic Iceberg commit. Bounded by
 *   maxRowsPerJob; a larger table fails the job with a message saying so (use incremental).
 * - incremental: rows with cursor > watermark, in batches of batchRows, each upserted by the
 *   primary key in its own commit whose snapshot carries `cairn.sync.cursor`; the watermark
 *   row in sync_targets is written after each commit. A crash between the commit and that
 *   write re-upserts the same keys on the next run (idempotent), and the run starts from
 *   max(sync_targets.last_cursor, snapshot cursor) anyway. If the Iceberg table is gone the
 *   watermark is ignored and the table is rebuilt from the start.
 */
import { AppError } from "../../../domain/errors.ts";
import type { SyncTarget } from "../../../domain/lakehouse/catalog.ts";
import type {
  LakehouseCatalogStore,
  LakehouseColumn,
  LakehousePort,
  SourceColumn,
} from "../../../domain/lakehouse/ports.ts";
import { SyncJobData } from "../../../domain/lakehouse/sync-job.ts";
import type { ControlPlaneStore, JobHandler } from "../../../domain/ports.ts";
import { lakehouseNamespace } from "../../../domain/tenants/namespaces.ts";
import { describeSourceTable, maxCursor, readSourceRows } from "./source.ts";

export const CURSOR_PROPERTY = "cairn.sync.cursor";
export const DEFAULT_MAX_ROWS_PER_JOB = 100_000;
export const DEFAULT_BATCH_ROWS = 5_000;

export interface SyncLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface LakehouseSyncDeps {
  store: ControlPlaneStore;
  catalogs: LakehouseCatalogStore;
  lakehouse: LakehousePort | null;
  logger: SyncLogger;
  /** Full refresh: most rows one job writes (one commit holds them all). */
  maxRowsPerJob?: number;
  /** Incremental: rows per commit. */
  batchRows?: number;
}

/** A type alias (not an interface) so it is a JsonValue: it is the job's stored result. */
export type SyncOutcome = {
  mode: SyncTarget["sync_mode"];
  rows_written: number;
  batches: number;
  snapshot_id: string | null;
  cursor: string | null;
};

type Progress = (p: { batches: number; rows_written: number; cursor: string | null }) => Promise<void>;

/** The queue handler: validates the payload, records running/succeeded/failed on the target. */
export function makeLakehouseSyncHandler(deps: LakehouseSyncDeps): JobHandler {
  return async (job) => {
    const parsed = SyncJobData.safeParse(job.data);
    if (!parsed.success) throw new AppError("bad_request", "lakehouse-sync job data must be {sync_target_id: uuid}");
    const id = parsed.data.sync_target_id;
    await deps.catalogs.updateSyncState(id, { last_status: "running", last_error: null, last_job_id: job.id });
    try {
      const out = await runLakehouseSync(deps, id, (p) => job.progress(p));
      await deps.catalogs.updateSyncState(id, {
        last_status: "succeeded",
        last_synced_at: new Date().toISOString(),
        ...(out.snapshot_id !== null ? { last_snapshot_id: out.snapshot_id } : {}),
      });
      deps.logger.info({ sync_target_id: id, job_id: job.id, ...out }, "lakehouse sync finished");
      return out;
    } catch (err) {
      const message = (err as Error).message;
      await deps.catalogs.updateSyncState(id, { last_status: "failed", last_error: message.slice(0, 2000) });
      deps.logger.warn({ sync_target_id: id, job_id: job.id, error: message }, "lakehouse sync failed");
      throw err;
    }
  };
}

/** One run of a sync target; throws AppError with the reason when it cannot run. */
export async function runLakehouseSync(
  deps: LakehouseSyncDeps,
  targetId: string,
  progress: Progress = async () => {},
): Promise<SyncOutcome> {
  const lake = deps.lakehouse;
  if (!lake) throw new AppError("unavailable", "No lakehouse gateway is configured (CAIRN_LAKEHOUSE_URL)");
  const target = await deps.catalogs.getSyncTarget(targetId);
  if (!target) throw new AppError("not_found", `No sync target ${targetId}`);
  const tenant = await deps.store.getTenant(target.tenant_id);
  if (!tenant?.is_active) throw new AppError("tenant_inactive", `Tenant ${target.tenant_slug} is not active`);
  // Checked again at run time: a target never writes outside its tenant's namespace.
  const ns = lakehouseNamespace(tenant.slug);
  if (target.iceberg_namespace !== ns) {
    throw new AppError("forbidden", `Sync target writes ${target.iceberg_namespace}, not the tenant's ${ns}`);
  }
  const catalog = await deps.catalogs.getActiveCatalog(tenant.tenant_id);
  if (catalog?.catalog_name !== target.catalog_name) {
    throw new AppError("conflict", `Catalog ${target.catalog_name} is not the tenant's active catalog`);
  }
  const columns = await describeSourceTable(deps.store.sql, target.source_schema, target.source_table);
  if (!columns) {
    throw new AppError("not_found", `Source table ${target.source_schema}.${target.source_table} does not exist`);
  }
  await lake.ensureNamespace({ tenantId: tenant.tenant_id, slug: tenant.slug });
  return target.sync_mode === "full_refresh"
    ? fullRefresh(deps, lake, target, columns, progress)
    : incremental(deps, lake, target, columns, progress);
}

const lakeColumns = (cols: SourceColumn[]): LakehouseColumn[] =>
  cols.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable }));

const snapshotText = (id: number | string | null) => (id === null ? null : String(id));

async function fullRefresh(
  deps: LakehouseSyncDeps,
  lake: LakehousePort,
  target: SyncTarget,
  columns: SourceColumn[],
  progress: Progress,
): Promise<SyncOutcome> {
  const max = deps.maxRowsPerJob ?? DEFAULT_MAX_ROWS_PER_JOB;
  const { rows } = await readSourceRows(deps.store.sql, {
    schema: target.source_schema,
    table: target.source_table,
    columns,
    limit: max + 1,
    tenantId: target.tenant_id,
  });
  if (rows.length > max) {
    throw new AppError(
      "payload_too_large",
      `${target.source_schema}.${target.source_table} has more than ${max} rows: a full_refresh writes the whole ` +
        "table in one commit and is limited to that many rows per job; use sync_mode incremental",
    );
  }
  const res = await lake.write(target.iceberg_namespace, target.iceberg_table, {
    mode: "overwrite",
    columns: lakeColumns(columns),
    rows,
    snapshot_properties: { "cairn.sync.target": target.id, "cairn.sync.mode": "full_refresh" },
  });
  await progress({ batches: 1, rows_written: res.rows_written, cursor: null });
  return {
    mode: "full_refresh",
    rows_written: res.rows_written,
    batches: 1,
    snapshot_id: snapshotText(res.snapshot_id),
    cursor: null,
  };
}

async function incremental(
  deps: LakehouseSyncDeps,
  lake: LakehousePort,
  target: SyncTarget,
  columns: SourceColumn[],
  progress: Progress,
): Promise<SyncOutcome> {
  const cursorCol = columns.find((c) => c.name === target.cursor_col);
  if (!cursorCol) throw new AppError("conflict", `Cursor column ${target.cursor_col} is not in the source table`);
  if (target.primary_key_cols.length === 0) throw new AppError("conflict", "Incremental sync needs primary_key_cols");
  const missing = target.primary_key_cols.filter((k) => !columns.some((c) => c.name === k));
  if (missing.length > 0) {
    throw new AppError("conflict", `Primary key columns missing from the source table: ${missing.join(", ")}`);
  }
  const batchRows = deps.batchRows ?? DEFAULT_BATCH_ROWS;
  const maxTies = deps.maxRowsPerJob ?? DEFAULT_MAX_ROWS_PER_JOB;
  const props = await lake.snapshotProperties(target.iceberg_namespace, target.iceberg_table);
  let cursor = props === null ? null : maxCursor(target.last_cursor, props[CURSOR_PROPERTY] ?? null, cursorCol.type);
  // Repair the stored watermark now (recovered from the snapshot, or reset for a missing
  // table) so it is right even when no batch follows.
  if (cursor !== target.last_cursor) await deps.catalogs.updateSyncState(target.id, { last_cursor: cursor });
  const read = (after: string | null, limit: number, upTo?: string) =>
    readSourceRows(deps.store.sql, {
      schema: target.source_schema,
      table: target.source_table,
      columns,
      limit,
      cursor: { column: cursorCol, after, ...(upTo !== undefined ? { upTo } : {}) },
      tenantId: target.tenant_id,
    });

  const out: SyncOutcome = { mode: "incremental", rows_written: 0, batches: 0, snapshot_id: null, cursor };
  for (;;) {
    let batch = await read(cursor, batchRows);
    if (batch.rows.length === 0) break;
    const full = batch.rows.length === batchRows;
    if (full) {
      // A LIMIT can split rows that share the last cursor value; the next batch starts
      // after that value, so take all of them now or they would be skipped for good.
      batch = await read(cursor, maxTies + 1, batch.cursors.at(-1) as string);
      if (batch.rows.length > maxTies) {
        throw new AppError("payload_too_large", `More than ${maxTies} rows share one ${cursorCol.name} value`);
      }
    }
    const batchMax = batch.cursors.at(-1) as string;
    const res = await lake.write(target.iceberg_namespace, target.iceberg_table, {
      mode: "upsert",
      key_columns: target.primary_key_cols,
      columns: lakeColumns(columns),
      rows: batch.rows,
      snapshot_properties: { [CURSOR_PROPERTY]: batchMax, "cairn.sync.target": target.id },
    });
    cursor = batchMax;
    out.cursor = cursor;
    out.batches++;
    out.rows_written += res.rows_written;
    out.snapshot_id = snapshotText(res.snapshot_id) ?? out.snapshot_id;
    await deps.catalogs.updateSyncState(target.id, {
      last_cursor: cursor,
      ...(out.snapshot_id !== null ? { last_snapshot_id: out.snapshot_id } : {}),
    });
    await progress({ batches: out.batches, rows_written: out.rows_written, cursor });
    if (!full) break;
  }
  return out;
}
