/**
 * Real-time tables (spec 2.9, 4.8): create with the QuestDB CREATE TABLE subset, list,
 * describe and measure. JWT only; every call is scoped to the caller's tenant namespace,
 * and a tenant whose time-series namespace is not provisioned gets 503 (as documents do).
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { AppError } from "../../../domain/errors.ts";
import {
  normaliseDdl,
  parseCreateTableRequest,
  type RealtimeTable,
  type TieringSummary,
} from "../../../domain/rtdb/index.ts";
import type { TenantRef } from "../../../domain/tenants/namespaces.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { CreateTableBody, CreateTableResult, StorageUsage, TableList, TableParam, TableSchema } from "./schema.ts";

/** QuestDB's defaults: cairo.max.uncommitted.rows and cairo.o3.max.lag (10 minutes, in microseconds). */
export const MAX_UNCOMMITTED_ROWS = 500_000;
export const O3_MAX_LAG_US = 600_000_000;
const GIB = 1024 ** 3;
export const TIERING_NOTE =
  "Partitions older than 7 days are exported automatically to the lakehouse as columnar files on object storage. " +
  "Rows: [table, rows, estimated bytes, partitions] of the hot data, tiered partitions excluded.";

/** The rule, the row layout, then what is tiered for this tenant and where (docs/tiering.md). */
export function tieringNote(s: TieringSummary | null): string {
  if (!s) return TIERING_NOTE;
  const n = (x: number) => x.toLocaleString("en-US");
  const plural = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? "" : "s"}`;
  return s.partitions === 0
    ? `${TIERING_NOTE} Nothing is tiered yet; tiered partitions go to ${s.location} as Parquet.`
    : `${TIERING_NOTE} Tiered: ${plural(s.partitions, "partition")} of ${plural(s.tables, "table")}, ` +
        `${plural(s.rows, "row")} in ${plural(s.bytes, "byte")} of Parquet at ${s.location}.`;
}

const TABLE_COLUMNS = [
  "tableName",
  "id",
  "partitionBy",
  "maxUncommittedRows",
  "o3MaxLag",
  "walEnabled",
  "directoryName",
] as const;
const SCHEMA_COLUMNS = [
  "columnName",
  "type",
  "indexed",
  "indexBlockCapacity",
  "symbolCached",
  "symbolCapacity",
  "designated",
] as const;

const UNPROVISIONED = { 503: json(ErrorBody, "Time-series namespace not provisioned for the tenant") };

export function registerRtdbRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const tables = deps.realtimeTables;
  const tenantOf = async (c: { get(key: "tenant"): { tenant_id: string; slug: string } }): Promise<TenantRef> => {
    const tenant = c.get("tenant");
    const ref = { tenantId: tenant.tenant_id, slug: tenant.slug };
    if (!(await tables.ready(ref))) {
      throw new AppError("unavailable", "Real-time tables are not provisioned for this tenant");
    }
    return ref;
  };

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/rtdb/tables",
      tags: ["Real-time tables"],
      summary: "Create a table from a QuestDB CREATE TABLE statement",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: CreateTableBody } }, required: true } },
      responses: {
        200: json(CreateTableResult, "Created (or already present with IF NOT EXISTS); the normalised DDL"),
        409: json(ErrorBody, "A table of that name exists and IF NOT EXISTS was not given"),
        ...UNPROVISIONED,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { sql } = c.req.valid("json");
      const spec = parseCreateTableRequest(sql);
      const ref = await tenantOf(c);
      const { table } = await tables.create(ref, spec, normaliseDdl(spec));
      return c.json({ ok: true, result: { ddl: table.ddl } }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rtdb/tables",
      tags: ["Real-time tables"],
      summary: "The tenant's tables, in QuestDB tables() row layout",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(TableList, "Tables"), ...UNPROVISIONED, ...AUTH_ERRORS },
    }),
    async (c) => {
      const list = await tables.list(await tenantOf(c));
      return c.json({ tables: list.map(tableRow), columns: TABLE_COLUMNS.map((name) => ({ name })) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rtdb/tables/{table}/schema",
      tags: ["Real-time tables"],
      summary: "A table's columns, in QuestDB table_columns() row layout",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: TableParam },
      responses: {
        200: json(TableSchema, "Schema"),
        404: json(ErrorBody, "No such table in the tenant"),
        ...UNPROVISIONED,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const name = c.req.valid("param").table;
      const found = await tables.get(await tenantOf(c), name);
      if (!found) throw new AppError("not_found", `Table '${name}' does not exist`);
      const { spec } = found;
      const columns = spec.columns.map((col) => [
        col.name,
        col.type,
        col.symbol?.index != null,
        col.symbol?.index?.capacity ?? 0,
        col.symbol?.cached ?? false,
        col.symbol?.capacity ?? 0,
        col.name === spec.designated,
      ]);
      return c.json({ table: spec.name, columns, schema: SCHEMA_COLUMNS.map((n) => ({ name: n })) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rtdb/storage",
      tags: ["Real-time tables"],
      summary: "Storage used by the tenant's tables",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(StorageUsage, "Storage usage"), ...UNPROVISIONED, ...AUTH_ERRORS },
    }),
    async (c) => {
      const ref = await tenantOf(c);
      const usage = await tables.storage(ref);
      const used = usage.tables.reduce((sum, t) => sum + t.bytes, 0);
      return c.json(
        {
          allocated_gb: toGb(usage.allocatedBytes),
          used_bytes: used,
          used_gb: toGb(used),
          tables: usage.tables.map((t) => [t.name, t.rows, t.bytes, t.partitions] as [string, number, number, number]),
          tiering_note: tieringNote((await deps.realtimeTiering?.summary(ref)) ?? null),
        },
        200,
      );
    },
  );
}

function tableRow({ spec, id }: RealtimeTable): (string | number | boolean)[] {
  // QuestDB names a WAL table's directory `<name>~<id>`.
  return [spec.name, id, spec.partitionBy, MAX_UNCOMMITTED_ROWS, O3_MAX_LAG_US, spec.wal, `${spec.name}~${id}`];
}

/** GiB, rounded to 6 decimals (about 1 KiB). */
function toGb(bytes: number): number {
  return Math.round((bytes / GIB) * 1e6) / 1e6;
}
