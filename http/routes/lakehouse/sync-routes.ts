/**
 * Sync targets (spec 2.5, 4.2): register a relational table for replication into the
 * tenant's lakehouse namespace, list them, read one with its last run, and trigger a run
 * (the "lakehouse-sync" job, pipelines/lakehouse/sync).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError, type ValidationIssue } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { SyncTarget } from "../../../domain/lakehouse/catalog.ts";
import { lakehouseNamespace } from "../../../domain/tenants/namespaces.ts";
import { describeSourceTable, isCursorType, LAKEHOUSE_SYNC_QUEUE } from "../../../pipelines/lakehouse/sync/index.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { redactingHook, tenantForCaller } from "./access.ts";
import {
  SyncRunAccepted,
  SyncTargetBody,
  SyncTargetIdParam,
  SyncTargetListItem,
  SyncTargetRecord,
  SyncTargetsQuery,
} from "./schema.ts";

const TAGS = ["Lakehouse"];

function listItem(t: SyncTarget): z.infer<typeof SyncTargetListItem> {
  return {
    id: t.id,
    catalog_name: t.catalog_name,
    tenant_slug: t.tenant_slug,
    source_schema: t.source_schema,
    source_table: t.source_table,
    iceberg_namespace: t.iceberg_namespace,
    iceberg_table: t.iceberg_table,
    sync_mode: t.sync_mode,
    cursor_col: t.cursor_col,
    created_at: t.created_at,
  };
}

function record(t: SyncTarget): z.infer<typeof SyncTargetRecord> {
  return {
    ...listItem(t),
    tenant_id: t.tenant_id,
    primary_key_cols: t.primary_key_cols,
    sync_connector_id: t.sync_connector_id,
    metadata: t.metadata,
    last_cursor: t.last_cursor,
    last_synced_at: t.last_synced_at,
    last_snapshot_id: t.last_snapshot_id,
    last_status: t.last_status,
    last_error: t.last_error,
    last_job_id: t.last_job_id,
  };
}

const issue = (field: string, msg: string, input: unknown): ValidationIssue => ({
  loc: ["body", field],
  msg,
  type: "value_error",
  input,
  ctx: {},
});

/** Checks the body against the source table itself; returns the section 7 items. */
async function sourceIssues(deps: AppDeps, body: z.infer<typeof SyncTargetBody>): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  if (body.sync_mode === "incremental") {
    if (body.cursor_col === null) issues.push(issue("cursor_col", "incremental sync requires cursor_col", null));
    if (body.primary_key_cols.length === 0) {
      issues.push(issue("primary_key_cols", "incremental sync requires at least one primary key column", []));
    }
  }
  const columns = await describeSourceTable(deps.store.sql, body.source_schema, body.source_table);
  if (!columns) {
    const name = `${body.source_schema}.${body.source_table}`;
    return [...issues, issue("source_table", `Source table ${name} does not exist`, body.source_table)];
  }
  const byName = new Map(columns.map((c) => [c.name, c]));
  if (body.cursor_col !== null) {
    const col = byName.get(body.cursor_col);
    if (!col) issues.push(issue("cursor_col", "cursor_col is not a column of the source table", body.cursor_col));
    else if (!isCursorType(col.type)) {
      issues.push(issue("cursor_col", `A ${col.type} column cannot be a cursor (not ordered)`, body.cursor_col));
    }
  }
  const missing = body.primary_key_cols.filter((k) => !byName.has(k));
  if (missing.length > 0) {
    issues.push(issue("primary_key_cols", `Not columns of the source table: ${missing.join(", ")}`, missing));
  }
  return issues;
}

export function registerSyncTargetRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/admin/lakehouse/sync-targets",
      tags: TAGS,
      summary: "Register a relational table for replication into the tenant's lakehouse (owners only)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: SyncTargetBody } }, required: true } },
      responses: {
        201: json(SyncTargetRecord, "The created sync target"),
        404: json(ErrorBody, "No such tenant"),
        409: json(ErrorBody, "No active catalog, or the Iceberg table already has a sync target"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const identity = c.get("identity") as UserIdentity;
      const body = c.req.valid("json");
      const tenant = await tenantForCaller(deps, identity, body.tenant_id, "owner");
      const own = lakehouseNamespace(tenant.slug);
      if (body.iceberg_namespace !== own) {
        throw new AppError("forbidden", `Sync targets write only into the tenant's own namespace ${own}`);
      }
      const issues = await sourceIssues(deps, body);
      if (issues.length > 0) throw AppError.validation(issues);
      const catalog = await deps.lakehouseCatalogs.getActiveCatalog(tenant.tenant_id);
      if (!catalog) {
        throw new AppError(
          "conflict",
          `Tenant ${tenant.slug} has no active lakehouse catalog: POST /v1/admin/tenants/${tenant.tenant_id}/catalog first`,
        );
      }
      const created = await deps.lakehouseCatalogs.createSyncTarget({
        tenant_id: tenant.tenant_id,
        catalog_name: catalog.catalog_name,
        source_schema: body.source_schema,
        source_table: body.source_table,
        iceberg_namespace: body.iceberg_namespace,
        iceberg_table: body.iceberg_table,
        sync_mode: body.sync_mode,
        primary_key_cols: body.primary_key_cols,
        cursor_col: body.cursor_col,
        sync_connector_id: body.sync_connector_id,
        metadata: body.metadata,
      });
      return c.json(record(created), 201);
    },
    redactingHook,
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/lakehouse/sync-targets",
      tags: TAGS,
      summary: "Sync targets of the caller's tenant (tenant_id, when given, must be that tenant)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { query: SyncTargetsQuery },
      responses: {
        200: json(z.array(SyncTargetListItem), "Sync targets, oldest first"),
        404: json(ErrorBody, "No such tenant"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const identity = c.get("identity") as UserIdentity;
      const wanted = c.req.valid("query").tenant_id ?? identity.tenantId;
      const tenant = await tenantForCaller(deps, identity, wanted, "member");
      const list = await deps.lakehouseCatalogs.listSyncTargets(tenant.tenant_id);
      return c.json(list.map(listItem), 200);
    },
  );

  /** The target when it belongs to the caller's tenant; others' targets are simply not found. */
  async function ownTarget(identity: UserIdentity, id: string): Promise<SyncTarget> {
    const t = await deps.lakehouseCatalogs.getSyncTarget(id);
    if (!t || t.tenant_id !== identity.tenantId) throw new AppError("not_found", `No sync target ${id}`);
    return t;
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/lakehouse/sync-targets/{id}",
      tags: TAGS,
      summary: "One sync target with the state of its last run",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: SyncTargetIdParam },
      responses: {
        200: json(SyncTargetRecord, "The sync target"),
        404: json(ErrorBody, "No such target"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const identity = c.get("identity") as UserIdentity;
      return c.json(record(await ownTarget(identity, c.req.valid("param").id)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/admin/lakehouse/sync-targets/{id}/run",
      tags: TAGS,
      summary: "Queue a sync run (owners only); a run already queued or running is returned instead",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: SyncTargetIdParam },
      responses: {
        202: json(SyncRunAccepted, "Queued; poll GET /v1/admin/lakehouse/sync-targets/{id}"),
        404: json(ErrorBody, "No such target"),
        503: json(ErrorBody, "No lakehouse gateway configured"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const identity = c.get("identity") as UserIdentity;
      const target = await ownTarget(identity, c.req.valid("param").id);
      await tenantForCaller(deps, identity, target.tenant_id, "owner");
      if (!deps.lakehouse)
        throw new AppError("unavailable", "No lakehouse gateway is configured (CAIRN_LAKEHOUSE_URL)");
      if (target.last_job_id) {
        const prev = await deps.queue.getJob(LAKEHOUSE_SYNC_QUEUE, target.last_job_id);
        if (prev && (prev.status === "waiting" || prev.status === "delayed" || prev.status === "active")) {
          const status: "running" | "queued" = prev.status === "active" ? "running" : "queued";
          return c.json({ job_id: prev.id, sync_target_id: target.id, status }, 202);
        }
      }
      // Recorded before the enqueue: a worker may start the job (and mark it running) at once.
      const jobId = crypto.randomUUID();
      await deps.lakehouseCatalogs.updateSyncState(target.id, { last_status: "queued", last_job_id: jobId });
      const job = await deps.queue.enqueue(LAKEHOUSE_SYNC_QUEUE, "sync", { sync_target_id: target.id }, { jobId });
      c.get("log").logger.info({ sync_target_id: target.id, job_id: job.id }, "lakehouse sync queued");
      return c.json({ job_id: job.id, sync_target_id: target.id, status: "queued" as const }, 202);
    },
  );
}
