/**
 * Datasets (spec 2.6, 3.2, 4.9): create (draft, nothing runs), build (answers at once with
 * the generated SQL; a durable job does the work), list (status polled here), preview (first
 * 100 rows) and lineage. Bodies use the default 1 MiB limit.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { FILTER_OPS, REALTIME_AGGS } from "../../../domain/foundry/dataset.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const Name = z.string().min(1).max(128);
/** Filter values are carried as strings (2.6); numbers and booleans are accepted and read as their text. */
const FilterValue = z
  .union([z.string().max(4096), z.number(), z.boolean()])
  .transform((v) => String(v))
  .openapi({ type: "string", example: "2023" });

const SourceTable = z.object({
  table: Name.openapi({ example: "income_statements" }),
  alias: Name.optional().openapi({ example: "i" }),
  columns: z
    .array(Name)
    .max(1000)
    .optional()
    .openapi({ example: ["cik", "fiscal_year", "revenue"] }),
});
const Filter = z.object({
  column: z.string().min(1).max(257).openapi({ example: "i.fiscal_year" }),
  op: z
    .string()
    .min(1)
    .max(16)
    .openapi({ example: ">=", description: `one of ${FILTER_OPS.join(", ")}` }),
  value: FilterValue,
});
const Join = z.object({
  left_table: Name.openapi({ example: "c" }),
  right_table: Name.openapi({ example: "i" }),
  left_col: Name.openapi({ example: "cik" }),
  right_col: Name.openapi({ example: "cik" }),
});
const GraphFeature = z.object({
  label: Name.openapi({ example: "Company" }),
  cypher_fragment: z
    .string()
    .min(1)
    .max(4096)
    .openapi({ example: "OPTIONAL MATCH (s:Company)-[:SUBSIDIARY_OF]->(e) RETURN count(s)" }),
  output_column: Name.openapi({ example: "subsidiary_count" }),
  join_column: z
    .string()
    .min(1)
    .max(257)
    .optional()
    .openapi({ description: "default: the label's key (Company: cik)" }),
});
const RealtimeCol = z.object({
  realtime_table: Name.openapi({ example: "market_daily" }),
  column: Name.openapi({ example: "close" }),
  agg: z
    .string()
    .min(1)
    .max(16)
    .openapi({ example: "avg", description: `one of ${REALTIME_AGGS.join(", ")}` }),
  window: z.string().min(2).max(16).openapi({ example: "30d" }),
  output_column: Name.optional(),
  join_column: z.string().min(1).max(257).optional().openapi({ description: "default: ticker" }),
});

export const DatasetSpecBody = z
  .object({
    name: Name.openapi({ example: "revenue_with_subsidiaries" }),
    description: z.string().max(4000).optional(),
    source_tables: z.array(SourceTable).min(1).max(16),
    filters: z.array(Filter).max(100).optional(),
    joins: z.array(Join).max(15).optional(),
    graph_features: z.array(GraphFeature).max(16).optional(),
    realtime_cols: z.array(RealtimeCol).max(16).optional(),
  })
  .openapi("DatasetSpec");

const Status = z.enum(["draft", "building", "ready", "error"]);
const Created = z.object({ id: z.string(), output_table: z.string(), status: Status }).openapi("DatasetCreated");
const Built = z
  .object({ id: z.string(), status: Status, output_table: z.string(), sql: z.string() })
  .openapi("DatasetBuild");
const DatasetRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    output_table: z.string(),
    row_count: z.number().int(),
    status: Status,
    created_at: z.string(),
    last_built_at: z.string().nullable(),
    error: z.string().nullable().openapi({ description: "why the latest build failed (status error)" }),
    progress: z
      .object({ stage: z.string(), percent: z.number() })
      .nullable()
      .openapi({ description: "the running build's stage" }),
  })
  .openapi("Dataset");
const DatasetList = z.object({ datasets: z.array(DatasetRecord) }).openapi("DatasetList");
const Column = z.object({ name: z.string(), type: z.string(), nullable: z.boolean().optional() });
const Preview = z
  .object({
    dataset: z.string(),
    output_table: z.string(),
    columns: z.array(Column),
    rows: z.array(z.record(z.string(), z.any())),
    row_count: z.number().int(),
  })
  .openapi("DatasetPreview");
const Lineage = z
  .object({
    dataset: z.string(),
    output: z.string(),
    sources: z.object({
      lakehouse_tables: z.array(z.object({ table: z.string(), alias: z.string() })),
      graph_features: z.array(z.record(z.string(), z.any())),
      realtime_cols: z.array(z.record(z.string(), z.any())),
    }),
    transforms: z.object({
      filters: z.array(z.object({ column: z.string(), op: z.string(), value: z.string() })),
      joins: z.array(Join),
    }),
  })
  .openapi("DatasetLineage");
const IdParam = z.object({
  id: z
    .string()
    .uuid()
    .openapi({ param: { name: "id", in: "path" } }),
});

const TAGS = ["Foundry"];
const UNAVAILABLE = { 503: json(ErrorBody, "No lakehouse configured") };
const NOT_FOUND = { 404: json(ErrorBody, "No such dataset in the tenant") };

export function registerFoundryDatasetRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/datasets",
      tags: TAGS,
      summary: "Create a dataset from a spec (draft; nothing is executed)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: DatasetSpecBody } }, required: true } },
      responses: {
        200: json(Created, "Created as draft"),
        409: json(ErrorBody, "A dataset of that name exists"),
        ...UNAVAILABLE,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.foundry.createDataset(tenantOf(c), c.req.valid("json")), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/datasets",
      tags: TAGS,
      summary: "The tenant's datasets with their status (poll here while building)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(DatasetList, "Datasets, oldest first"), ...AUTH_ERRORS },
    }),
    async (c) => c.json({ datasets: await deps.foundry.listDatasets(tenantOf(c)) }, 200),
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/datasets/{id}/build",
      tags: TAGS,
      summary: "Start building the dataset; returns at once with the generated Spark SQL",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: { 200: json(Built, "Build started"), ...NOT_FOUND, ...UNAVAILABLE, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await deps.foundry.buildDataset(tenantOf(c), c.req.valid("param").id), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/datasets/{id}/preview",
      tags: TAGS,
      summary: "The first 100 rows of the built table, with column names and types",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: {
        200: json(Preview, "Preview"),
        409: json(ErrorBody, "Not built yet"),
        ...NOT_FOUND,
        ...UNAVAILABLE,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.foundry.previewDataset(tenantOf(c), c.req.valid("param").id), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/datasets/{id}/lineage",
      tags: TAGS,
      summary: "Where the dataset's rows come from and how they are transformed",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: { 200: json(Lineage, "Lineage"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await deps.foundry.datasetLineage(tenantOf(c), c.req.valid("param").id), 200),
  );
}
