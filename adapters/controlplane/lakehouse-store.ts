/**
 * LakehouseCatalogStore over a SqlClient: one implementation for bun:sqlite and Postgres
 * (tables in lakehouse-migrations.ts). JSON columns are TEXT and timestamps ISO-8601 TEXT,
 * as in the rest of the control plane, so both dialects order and compare alike.
 */
import { AppError } from "../../domain/errors.ts";
import type {
  Catalog,
  CatalogUpsert,
  NewSyncTarget,
  SyncStatePatch,
  SyncTarget,
} from "../../domain/lakehouse/catalog.ts";
import { catalogSecretContext } from "../../domain/lakehouse/catalog.ts";
import type { LakehouseCatalogStore } from "../../domain/lakehouse/ports.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";

type CatalogRow = Omit<Catalog, "metadata" | "is_active"> & { metadata: string; is_active: number | boolean };
type TargetRow = Omit<SyncTarget, "metadata" | "primary_key_cols"> & { metadata: string; primary_key_cols: string };

const CATALOG_SELECT = "SELECT c.*, t.slug AS tenant_slug FROM catalogs c JOIN tenants t ON t.tenant_id = c.tenant_id";
const TARGET_SELECT =
  "SELECT s.*, t.slug AS tenant_slug FROM sync_targets s JOIN tenants t ON t.tenant_id = s.tenant_id";

/** Columns updateSyncState may write; the patch's keys are checked against this list. */
const SYNC_STATE_COLS = [
  "last_cursor",
  "last_synced_at",
  "last_snapshot_id",
  "last_status",
  "last_error",
  "last_job_id",
] as const satisfies readonly (keyof SyncStatePatch)[];

function toCatalog(r: CatalogRow): Catalog {
  return { ...r, is_active: Boolean(r.is_active), metadata: JSON.parse(r.metadata) as Record<string, unknown> };
}

function toTarget(r: TargetRow): SyncTarget {
  return {
    ...r,
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
    primary_key_cols: JSON.parse(r.primary_key_cols) as string[],
  };
}

const now = () => new Date().toISOString();

export class SqlLakehouseCatalogStore implements LakehouseCatalogStore {
  constructor(private readonly sql: SqlClient) {}

  async upsertCatalog(c: CatalogUpsert): Promise<Catalog> {
    const at = now();
    return this.sql.transaction(async (tx) => {
      // ON CONFLICT keeps the row (and its id, provisioned_at) when the name exists: a
      // repeated POST rotates credentials or moves the warehouse, it is not a new catalog.
      await tx.run(
        `INSERT INTO catalogs (id, tenant_id, catalog_name, catalog_type, catalog_uri, warehouse, storage_prefix,
           s3_endpoint, s3_access_key_id, s3_secret_key_enc, key_id, metadata, is_active, provisioned_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, catalog_name) DO UPDATE SET
           catalog_type = excluded.catalog_type, catalog_uri = excluded.catalog_uri,
           warehouse = excluded.warehouse, storage_prefix = excluded.storage_prefix,
           s3_endpoint = excluded.s3_endpoint, s3_access_key_id = excluded.s3_access_key_id,
           s3_secret_key_enc = excluded.s3_secret_key_enc, key_id = excluded.key_id,
           metadata = excluded.metadata, is_active = excluded.is_active, updated_at = excluded.updated_at`,
        [
          crypto.randomUUID(),
          c.tenant_id,
          c.catalog_name,
          c.catalog_type,
          c.catalog_uri,
          c.warehouse,
          c.storage_prefix,
          c.s3_endpoint,
          c.s3_access_key_id,
          c.s3_secret_key_enc,
          c.key_id,
          JSON.stringify(c.metadata),
          true,
          at,
          at,
        ],
      );
      // One active catalog per tenant: the one provisioned last.
      await tx.run(
        "UPDATE catalogs SET is_active = ?, updated_at = ? WHERE tenant_id = ? AND catalog_name <> ? AND is_active = ?",
        [false, at, c.tenant_id, c.catalog_name, true],
      );
      const row = await tx.get<CatalogRow>(`${CATALOG_SELECT} WHERE c.tenant_id = ? AND c.catalog_name = ?`, [
        c.tenant_id,
        c.catalog_name,
      ]);
      return toCatalog(row as CatalogRow);
    });
  }

  async ensureCatalog(c: CatalogUpsert): Promise<Catalog> {
    const at = now();
    // Active only when the tenant has no active catalog yet: ensuring never demotes one.
    const active = (await this.getActiveCatalog(c.tenant_id)) === null;
    await this.sql.run(
      `INSERT INTO catalogs (id, tenant_id, catalog_name, catalog_type, catalog_uri, warehouse, storage_prefix,
         s3_endpoint, s3_access_key_id, s3_secret_key_enc, key_id, metadata, is_active, provisioned_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant_id, catalog_name) DO NOTHING`,
      [
        crypto.randomUUID(),
        c.tenant_id,
        c.catalog_name,
        c.catalog_type,
        c.catalog_uri,
        c.warehouse,
        c.storage_prefix,
        c.s3_endpoint,
        c.s3_access_key_id,
        c.s3_secret_key_enc,
        c.key_id,
        JSON.stringify(c.metadata),
        active,
        at,
        at,
      ],
    );
    return (await this.getCatalog(c.tenant_id, c.catalog_name)) as Catalog;
  }

  async getCatalog(tenantId: string, catalogName: string): Promise<Catalog | null> {
    const r = await this.sql.get<CatalogRow>(`${CATALOG_SELECT} WHERE c.tenant_id = ? AND c.catalog_name = ?`, [
      tenantId,
      catalogName,
    ]);
    return r ? toCatalog(r) : null;
  }

  async getActiveCatalog(tenantId: string): Promise<Catalog | null> {
    const r = await this.sql.get<CatalogRow>(
      `${CATALOG_SELECT} WHERE c.tenant_id = ? AND c.is_active = ? ORDER BY c.updated_at DESC LIMIT 1`,
      [tenantId, true],
    );
    return r ? toCatalog(r) : null;
  }

  async listCatalogs(tenantId?: string): Promise<Catalog[]> {
    const where = tenantId === undefined ? "" : " WHERE c.tenant_id = ?";
    const rows = await this.sql.all<CatalogRow>(
      `${CATALOG_SELECT}${where} ORDER BY c.provisioned_at DESC, c.id DESC`,
      tenantId === undefined ? [] : [tenantId],
    );
    return rows.map(toCatalog);
  }

  async rotateCatalogSecrets(
    stale: (ciphertext: string) => boolean,
    rotate: (ciphertext: string, context: string) => { ciphertext: string; keyId: string },
  ): Promise<number> {
    const rows = await this.sql.all<{ id: string; tenant_id: string; catalog_name: string; s3_secret_key_enc: string }>(
      "SELECT id, tenant_id, catalog_name, s3_secret_key_enc FROM catalogs WHERE s3_secret_key_enc IS NOT NULL",
    );
    let changed = 0;
    for (const r of rows) {
      if (!stale(r.s3_secret_key_enc)) continue;
      const next = rotate(r.s3_secret_key_enc, catalogSecretContext(r.tenant_id, r.catalog_name));
      // Compare-and-set: a concurrent POST that replaced the secret wins over the rotation.
      const res = await this.sql.run(
        "UPDATE catalogs SET s3_secret_key_enc = ?, key_id = ? WHERE id = ? AND s3_secret_key_enc = ?",
        [next.ciphertext, next.keyId, r.id, r.s3_secret_key_enc],
      );
      changed += res.changes;
    }
    return changed;
  }

  async createSyncTarget(t: NewSyncTarget): Promise<SyncTarget> {
    const id = crypto.randomUUID();
    try {
      await this.sql.run(
        `INSERT INTO sync_targets (id, tenant_id, catalog_name, source_schema, source_table, iceberg_namespace,
           iceberg_table, sync_mode, primary_key_cols, cursor_col, sync_connector_id, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          id,
          t.tenant_id,
          t.catalog_name,
          t.source_schema,
          t.source_table,
          t.iceberg_namespace,
          t.iceberg_table,
          t.sync_mode,
          JSON.stringify(t.primary_key_cols),
          t.cursor_col,
          t.sync_connector_id,
          JSON.stringify(t.metadata),
          now(),
        ],
      );
    } catch (err) {
      const clash = await this.sql.get(
        "SELECT id FROM sync_targets WHERE tenant_id = ? AND iceberg_namespace = ? AND iceberg_table = ?",
        [t.tenant_id, t.iceberg_namespace, t.iceberg_table],
      );
      if (clash) {
        throw new AppError(
          "conflict",
          `A sync target already writes ${t.iceberg_namespace}.${t.iceberg_table}; one table has one source`,
        );
      }
      throw err;
    }
    return (await this.getSyncTarget(id)) as SyncTarget;
  }

  async getSyncTarget(id: string): Promise<SyncTarget | null> {
    const r = await this.sql.get<TargetRow>(`${TARGET_SELECT} WHERE s.id = ?`, [id]);
    return r ? toTarget(r) : null;
  }

  async listSyncTargets(tenantId?: string): Promise<SyncTarget[]> {
    const where = tenantId === undefined ? "" : " WHERE s.tenant_id = ?";
    const rows = await this.sql.all<TargetRow>(
      `${TARGET_SELECT}${where} ORDER BY s.created_at, s.id`,
      tenantId === undefined ? [] : [tenantId],
    );
    return rows.map(toTarget);
  }

  async updateSyncState(id: string, patch: SyncStatePatch): Promise<SyncTarget> {
    const cols = SYNC_STATE_COLS.filter((c) => patch[c] !== undefined);
    if (cols.length > 0) {
      const params: SqlParam[] = cols.map((c) => patch[c] ?? null);
      const res = await this.sql.run(`UPDATE sync_targets SET ${cols.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`, [
        ...params,
        id,
      ]);
      if (res.changes === 0) throw new AppError("not_found", `No sync target ${id}`);
    }
    const t = await this.getSyncTarget(id);
    if (!t) throw new AppError("not_found", `No sync target ${id}`);
    return t;
  }
}
