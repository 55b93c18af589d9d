/**
 * Sync targets (spec 2.5, 4.2): register a relational table for replication into the
 * tenant's lakehouse namespace, list them, read one with its last run, and trigger a run
 * (the "lakehouse-sync" job, domain/lakehouse/sync-job.ts).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { SyncTarget } from "../../../domain/lakehouse/catalog.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { redactingHook } from "./access.ts";
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

/** Registration order is the OpenAPI document's order: keep it. */
export function registerSyncTargetRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  registerCreateSyncTarget(app, deps, guards);
  registerSyncTargetList(app, deps, guards);
  registerSyncTargetRead(app, deps, guards);
  registerSyncRun(app, deps, guards);
}

function registerCreateSyncTarget(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
      const created = await deps.lakehouse.createSyncTarget(identity, body);
      return c.json(record(created), 201);
    },
    redactingHook,
  );
}

function registerSyncTargetList(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
      const list = await deps.lakehouse.listSyncTargets(identity, c.req.valid("query").tenant_id);
      return c.json(list.map(listItem), 200);
    },
  );
}

function registerSyncTargetRead(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
      return c.json(record(await deps.lakehouse.syncTarget(identity, c.req.valid("param").id)), 200);
    },
  );
}

function registerSyncRun(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
      const { run, enqueued } = await deps.lakehouse.startSyncRun(identity, c.req.valid("param").id);
      if (enqueued) {
        c.get("log").logger.info({ sync_target_id: run.sync_target_id, job_id: run.job_id }, "lakehouse sync queued");
      }
      return c.json(run, 202);
    },
  );
}
