/**
 * What /v1/admin/lakehouse/* and /v1/admin/tenants/{id}/catalog do (spec 2.4, 2.5, 4.2):
 * who may manage a tenant's lakehouse, catalogs with their storage secret encrypted at
 * rest, sync targets checked against their source table, queuing a sync run, and the
 * gateway's health. No I/O of its own: everything comes through ./ports.ts.
 */
import { AppError, type ValidationIssue } from "../errors.ts";
import type { UserIdentity } from "../identity.ts";
import type { Tenant } from "../ports.ts";
import { lakehouseNamespace } from "../tenants/namespaces.ts";
import {
  type Catalog,
  type CatalogUpsert,
  catalogSecretContext,
  type SourceSchema,
  type SyncMode,
  type SyncTarget,
} from "./catalog.ts";
import type {
  CatalogSecretSealer,
  LakehouseCatalogStore,
  LakehouseHealth,
  LakehousePort,
  SourceTablePort,
  SyncJobQueue,
  TenantLookup,
} from "./ports.ts";
import { LAKEHOUSE_SYNC_QUEUE, type SyncJobData } from "./sync-job.ts";

export const OWNER_ROLE = "owner";

export interface LakehouseServiceDeps {
  catalogs: LakehouseCatalogStore;
  /** Null when no lakehouse gateway is configured (CAIRN_LAKEHOUSE_URL). */
  gateway: LakehousePort | null;
  tenants: TenantLookup;
  secrets: CatalogSecretSealer;
  queue: SyncJobQueue;
  sources: SourceTablePort;
}

/** A catalog as an owner submits it; `s3_secret_key_enc` is the plaintext secret, or null. */
export type CatalogInput = Omit<CatalogUpsert, "tenant_id" | "key_id">;

export interface SyncTargetInput {
  tenant_id: string;
  source_schema: SourceSchema;
  source_table: string;
  iceberg_namespace: string;
  iceberg_table: string;
  sync_mode: SyncMode;
  primary_key_cols: string[];
  cursor_col: string | null;
  sync_connector_id: string | null;
  metadata: Record<string, unknown>;
}

export interface SyncRun {
  job_id: string;
  sync_target_id: string;
  status: "queued" | "running";
}

const issue = (field: string, msg: string, input: unknown): ValidationIssue => ({
  loc: ["body", field],
  msg,
  type: "value_error",
  input,
  ctx: {},
});

export class LakehouseService {
  constructor(private readonly deps: LakehouseServiceDeps) {}

  /**
   * The tenant, when the caller may act on it: 404 for an unknown tenant, 403 for another
   * tenant's or, when `owner` is required, for a user without the owner role.
   */
  async tenantForCaller(identity: UserIdentity, tenantId: string, need: "owner" | "member"): Promise<Tenant> {
    const tenant = await this.deps.tenants.getTenant(tenantId);
    if (!tenant) throw new AppError("not_found", `No tenant ${tenantId}`);
    if (identity.tenantId !== tenant.tenant_id) {
      throw new AppError("forbidden", "A user manages only the lakehouse of their own tenant");
    }
    if (need === "owner" && !identity.roles.includes(OWNER_ROLE)) {
      throw new AppError("forbidden", `Requires the ${OWNER_ROLE} role in tenant ${tenant.slug}`);
    }
    return tenant;
  }

  /** Creates or updates (owners only) the tenant's catalog of that name and makes it active. */
  async upsertCatalog(identity: UserIdentity, tenantId: string, input: CatalogInput): Promise<Catalog> {
    const tenant = await this.tenantForCaller(identity, tenantId, "owner");
    const secret = input.s3_secret_key_enc;
    const { secrets } = this.deps;
    return this.deps.catalogs.upsertCatalog({
      tenant_id: tenant.tenant_id,
      catalog_name: input.catalog_name,
      catalog_type: input.catalog_type,
      catalog_uri: input.catalog_uri,
      warehouse: input.warehouse,
      storage_prefix: input.storage_prefix,
      s3_endpoint: input.s3_endpoint,
      s3_access_key_id: input.s3_access_key_id,
      s3_secret_key_enc:
        secret === null ? null : secrets.encrypt(secret, catalogSecretContext(tenant.tenant_id, input.catalog_name)),
      key_id: secret === null ? null : secrets.activeKeyId,
      metadata: input.metadata,
    });
  }

  /** The tenant's active catalog; 404 when none is provisioned. */
  async activeCatalog(identity: UserIdentity, tenantId: string): Promise<Catalog> {
    const tenant = await this.tenantForCaller(identity, tenantId, "member");
    const cat = await this.deps.catalogs.getActiveCatalog(tenant.tenant_id);
    if (!cat) throw new AppError("not_found", `No active lakehouse catalog provisioned for tenant ${tenant.slug}`);
    return cat;
  }

  /** The caller's tenant's catalogs, newest provisioned first. */
  listCatalogs(identity: UserIdentity): Promise<Catalog[]> {
    return this.deps.catalogs.listCatalogs(identity.tenantId);
  }

  /** Registers a sync target (owners only) into the tenant's own namespace and active catalog. */
  async createSyncTarget(identity: UserIdentity, input: SyncTargetInput): Promise<SyncTarget> {
    const tenant = await this.tenantForCaller(identity, input.tenant_id, "owner");
    const own = lakehouseNamespace(tenant.slug);
    if (input.iceberg_namespace !== own) {
      throw new AppError("forbidden", `Sync targets write only into the tenant's own namespace ${own}`);
    }
    const issues = await this.sourceIssues(input);
    if (issues.length > 0) throw AppError.validation(issues);
    const catalog = await this.deps.catalogs.getActiveCatalog(tenant.tenant_id);
    if (!catalog) {
      throw new AppError(
        "conflict",
        `Tenant ${tenant.slug} has no active lakehouse catalog: POST /v1/admin/tenants/${tenant.tenant_id}/catalog first`,
      );
    }
    return this.deps.catalogs.createSyncTarget({
      tenant_id: tenant.tenant_id,
      catalog_name: catalog.catalog_name,
      source_schema: input.source_schema,
      source_table: input.source_table,
      iceberg_namespace: input.iceberg_namespace,
      iceberg_table: input.iceberg_table,
      sync_mode: input.sync_mode,
      primary_key_cols: input.primary_key_cols,
      cursor_col: input.cursor_col,
      sync_connector_id: input.sync_connector_id,
      metadata: input.metadata,
    });
  }

  /** Sync targets of the given tenant (the caller's when omitted), oldest first. */
  async listSyncTargets(identity: UserIdentity, tenantId: string | undefined): Promise<SyncTarget[]> {
    const tenant = await this.tenantForCaller(identity, tenantId ?? identity.tenantId, "member");
    return this.deps.catalogs.listSyncTargets(tenant.tenant_id);
  }

  /** The target when it belongs to the caller's tenant; others' targets are simply not found. */
  async syncTarget(identity: UserIdentity, id: string): Promise<SyncTarget> {
    const t = await this.deps.catalogs.getSyncTarget(id);
    if (!t || t.tenant_id !== identity.tenantId) throw new AppError("not_found", `No sync target ${id}`);
    return t;
  }

  /**
   * Queues a sync run (owners only); a run already queued or running is returned instead,
   * with `enqueued` false. 503 when no gateway is configured.
   */
  async startSyncRun(identity: UserIdentity, id: string): Promise<{ run: SyncRun; enqueued: boolean }> {
    const target = await this.syncTarget(identity, id);
    await this.tenantForCaller(identity, target.tenant_id, "owner");
    if (!this.deps.gateway)
      throw new AppError("unavailable", "No lakehouse gateway is configured (CAIRN_LAKEHOUSE_URL)");
    const { queue } = this.deps;
    if (target.last_job_id) {
      const prev = await queue.getJob(LAKEHOUSE_SYNC_QUEUE, target.last_job_id);
      if (prev && (prev.status === "waiting" || prev.status === "delayed" || prev.status === "active")) {
        const status: "running" | "queued" = prev.status === "active" ? "running" : "queued";
        return { run: { job_id: prev.id, sync_target_id: target.id, status }, enqueued: false };
      }
    }
    // Recorded before the enqueue: a worker may start the job (and mark it running) at once.
    const jobId = crypto.randomUUID();
    await this.deps.catalogs.updateSyncState(target.id, { last_status: "queued", last_job_id: jobId });
    const data: SyncJobData = { sync_target_id: target.id };
    const job = await queue.enqueue(LAKEHOUSE_SYNC_QUEUE, "sync", data, { jobId });
    return { run: { job_id: job.id, sync_target_id: target.id, status: "queued" }, enqueued: true };
  }

  /** The gateway's health; "unavailable" with the reason when none is configured. */
  health(): Promise<LakehouseHealth> {
    if (!this.deps.gateway) {
      return Promise.resolve({
        status: "unavailable",
        error: "no lakehouse is configured (CAIRN_LAKEHOUSE_URL)",
      });
    }
    return this.deps.gateway.health();
  }

  /** Checks the input against the source table itself; returns the section 7 items. */
  private async sourceIssues(input: SyncTargetInput): Promise<ValidationIssue[]> {
    const issues: ValidationIssue[] = [];
    if (input.sync_mode === "incremental") {
      if (input.cursor_col === null) issues.push(issue("cursor_col", "incremental sync requires cursor_col", null));
      if (input.primary_key_cols.length === 0) {
        issues.push(issue("primary_key_cols", "incremental sync requires at least one primary key column", []));
      }
    }
    const { sources } = this.deps;
    const columns = await sources.describe(input.source_schema, input.source_table);
    if (!columns) {
      const name = `${input.source_schema}.${input.source_table}`;
      return [...issues, issue("source_table", `Source table ${name} does not exist`, input.source_table)];
    }
    const byName = new Map(columns.map((c) => [c.name, c]));
    if (input.cursor_col !== null) {
      const col = byName.get(input.cursor_col);
      if (!col) issues.push(issue("cursor_col", "cursor_col is not a column of the source table", input.cursor_col));
      else if (!sources.isCursorType(col.type)) {
        issues.push(issue("cursor_col", `A ${col.type} column cannot be a cursor (not ordered)`, input.cursor_col));
      }
    }
    const missing = input.primary_key_cols.filter((k) => !byName.has(k));
    if (missing.length > 0) {
      issues.push(issue("primary_key_cols", `Not columns of the source table: ${missing.join(", ")}`, missing));
    }
    return issues;
  }
}
