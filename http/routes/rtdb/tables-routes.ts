/**
 * Real-time tables (spec 2.9, 4.8): create with the QuestDB CREATE TABLE subset, list and
 * describe, answering in QuestDB's tables() and table_columns() row layouts.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { RealtimeTable } from "../../../domain/rtdb/index.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { CreateTableBody, CreateTableResult, TableList, TableParam, TableSchema } from "./schema.ts";
import { tenantOf } from "./tenant.ts";

/** QuestDB's defaults: cairo.max.uncommitted.rows and cairo.o3.max.lag (10 minutes, in microseconds). */
export const MAX_UNCOMMITTED_ROWS = 500_000;
export const O3_MAX_LAG_US = 600_000_000;

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

export const UNPROVISIONED = { 503: json(ErrorBody, "Time-series namespace not provisioned for the tenant") };

/** Registration order is the OpenAPI document's order: create, list, schema. */
export function registerRtdbTableRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  registerCreateTable(app, deps, guards);
  registerListTables(app, deps, guards);
  registerTableSchema(app, deps, guards);
}

function registerCreateTable(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
      const { ddl } = await deps.rtdb.createTable(tenantOf(c), c.req.valid("json").sql);
      return c.json({ ok: true, result: { ddl } }, 200);
    },
  );
}

function registerListTables(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
      const list = await deps.rtdb.listTables(tenantOf(c));
      return c.json({ tables: list.map(tableRow), columns: TABLE_COLUMNS.map((name) => ({ name })) }, 200);
    },
  );
}

function registerTableSchema(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
      const spec = await deps.rtdb.tableSpec(tenantOf(c), c.req.valid("param").table);
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
}

function tableRow({ spec, id }: RealtimeTable): (string | number | boolean)[] {
  // QuestDB names a WAL table's directory `<name>~<id>`.
  return [spec.name, id, spec.partitionBy, MAX_UNCOMMITTED_ROWS, O3_MAX_LAG_US, spec.wal, `${spec.name}~${id}`];
}
