/** Request and response schemas of the lakehouse catalog and sync-target routes (spec 2.4, 2.5). */
import { z } from "@hono/zod-openapi";
import {
  CATALOG_TYPES,
  DEFAULT_CATALOG_NAME,
  ICEBERG_NAME_RE,
  SOURCE_SCHEMAS,
  SQL_IDENT_RE,
  SYNC_MODES,
  SYNC_STATUSES,
} from "../../../domain/lakehouse/catalog.ts";

const CATALOG_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** `s3://bucket[/path]`; bucket names per S3 rules (3-63 of a-z0-9.-). */
const WAREHOUSE_RE = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^\s]*)?$/;
/** A relative key prefix: no leading slash, no `..` segments, no whitespace. */
const PREFIX_RE = /^(?!\/)(?!.*(^|\/)\.\.(\/|$))[A-Za-z0-9._\-/=]{1,512}$/;
/** `scheme://anything@host`: credentials in the authority part of a URL. */
const USERINFO_RE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;
/**
 * A URL of one of the protocols, without userinfo: a URI is stored and returned as given, so
 * `user:password@` in it would be a secret kept in clear and echoed back (decisions.md).
 */
const urlOf = (protocols: string[]) =>
  z
    .string()
    .max(2048)
    .url()
    .refine((v) => protocols.some((p) => v.startsWith(`${p}://`)), `must start with ${protocols.join(":// or ")}://`)
    .refine(
      (v) => !USERINFO_RE.test(v),
      "must not carry credentials (user:password@); storage credentials go in s3_access_key_id and " +
        "s3_secret_key_enc, which are encrypted at rest and never returned",
    );

export const TenantIdParam = z.object({ tenant_id: z.string().uuid() });
export const SyncTargetIdParam = z.object({ id: z.string().uuid() });

/** The fields whose values never appear in a response, a log line or a validation error. */
export const SECRET_FIELDS = ["s3_secret_key_enc", "s3_access_key_id"] as const;

export const CatalogBody = z
  .object({
    catalog_name: z.string().regex(CATALOG_NAME_RE).default(DEFAULT_CATALOG_NAME),
    catalog_type: z.enum(CATALOG_TYPES).default("rest"),
    catalog_uri: urlOf(["http", "https", "thrift"]).openapi({ example: "https://catalog.example.com/api/catalog" }),
    warehouse: z.string().regex(WAREHOUSE_RE).openapi({ example: "s3://lakehouse/warehouse" }),
    storage_prefix: z.string().regex(PREFIX_RE).openapi({ example: "tenants/acme" }),
    s3_endpoint: urlOf(["http", "https"]).nullable().default(null),
    s3_access_key_id: z
      .string()
      .min(1)
      .max(256)
      .nullable()
      .default(null)
      .openapi({ writeOnly: true, description: "The storage access key id; never returned" }),
    s3_secret_key_enc: z
      .string()
      .min(1)
      .max(4096)
      .nullable()
      .default(null)
      .openapi({ writeOnly: true, description: "The storage secret key; encrypted at rest, never returned" }),
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export const CatalogRecord = z
  .object({
    id: z.string().uuid(),
    tenant_id: z.string().uuid(),
    tenant_slug: z.string(),
    catalog_name: z.string(),
    catalog_type: z.enum(CATALOG_TYPES),
    catalog_uri: z.string(),
    warehouse: z.string(),
    storage_prefix: z.string(),
    is_active: z.boolean(),
    provisioned_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("LakehouseCatalog");

export const ActiveCatalog = CatalogRecord.pick({
  id: true,
  tenant_id: true,
  tenant_slug: true,
  catalog_name: true,
  is_active: true,
  provisioned_at: true,
}).openapi("ActiveLakehouseCatalog");

export const CatalogListItem = CatalogRecord.pick({
  id: true,
  tenant_id: true,
  tenant_slug: true,
  catalog_name: true,
  catalog_type: true,
  is_active: true,
  provisioned_at: true,
}).openapi("LakehouseCatalogListItem");

export const SyncTargetBody = z
  .object({
    tenant_id: z.string().uuid(),
    source_schema: z.enum(SOURCE_SCHEMAS),
    source_table: z.string().regex(SQL_IDENT_RE),
    iceberg_namespace: z.string().regex(ICEBERG_NAME_RE),
    iceberg_table: z.string().regex(ICEBERG_NAME_RE),
    sync_mode: z.enum(SYNC_MODES).default("incremental"),
    primary_key_cols: z.array(z.string().regex(SQL_IDENT_RE)).max(32).default([]),
    cursor_col: z.string().regex(SQL_IDENT_RE).nullable().default(null),
    sync_connector_id: z.string().min(1).max(256).nullable().default(null),
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export const SyncTargetListItem = z
  .object({
    id: z.string().uuid(),
    catalog_name: z.string(),
    tenant_slug: z.string(),
    source_schema: z.enum(SOURCE_SCHEMAS),
    source_table: z.string(),
    iceberg_namespace: z.string(),
    iceberg_table: z.string(),
    sync_mode: z.enum(SYNC_MODES),
    cursor_col: z.string().nullable(),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("SyncTargetListItem");

export const SyncTargetRecord = SyncTargetListItem.extend({
  tenant_id: z.string().uuid(),
  primary_key_cols: z.array(z.string()),
  sync_connector_id: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  last_cursor: z.string().nullable(),
  last_synced_at: z.string().nullable(),
  last_snapshot_id: z.string().nullable().openapi({ description: "Iceberg snapshot id (64-bit, as text)" }),
  last_status: z.enum(SYNC_STATUSES).nullable(),
  last_error: z.string().nullable(),
  last_job_id: z.string().nullable(),
}).openapi("SyncTarget");

export const SyncTargetsQuery = z.object({ tenant_id: z.string().uuid().optional() });

export const SyncRunAccepted = z
  .object({
    job_id: z.string(),
    sync_target_id: z.string().uuid(),
    status: z.enum(["queued", "running"]),
  })
  .openapi("SyncRunAccepted");
