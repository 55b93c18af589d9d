/** Lakehouse catalogs (spec 2.4, 4.2): provision or update, read the active one, list. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { Catalog } from "../../../domain/lakehouse/catalog.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { stripUserinfo } from "../../problem.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { redactingHook } from "./access.ts";
import { ActiveCatalog, CatalogBody, CatalogListItem, CatalogRecord, TenantIdParam } from "./schema.ts";

const TAGS = ["Lakehouse"];

/** Picks the public fields one by one, so a new stored column can never leak by default. */
function catalogRecord(c: Catalog): z.infer<typeof CatalogRecord> {
  return {
    id: c.id,
    tenant_id: c.tenant_id,
    tenant_slug: c.tenant_slug,
    catalog_name: c.catalog_name,
    catalog_type: c.catalog_type,
    // Rows stored before userinfo was refused keep it; it never leaves the service.
    catalog_uri: stripUserinfo(c.catalog_uri),
    warehouse: c.warehouse,
    storage_prefix: c.storage_prefix,
    is_active: c.is_active,
    provisioned_at: c.provisioned_at,
  };
}

/** Registration order is the OpenAPI document's order: keep it. */
export function registerCatalogRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  registerUpsertCatalog(app, deps, guards);
  registerActiveCatalog(app, deps, guards);
  registerCatalogList(app, deps, guards);
}

function registerUpsertCatalog(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/admin/tenants/{tenant_id}/catalog",
      tags: TAGS,
      summary: "Provision or update the tenant's lakehouse catalog (upsert; owners only)",
      description:
        "Creates the catalog, or updates the one with the same catalog_name (same id): repeat it to rotate " +
        "storage credentials or move the warehouse. The catalog becomes the tenant's active catalog. " +
        "s3_secret_key_enc is encrypted at rest; storage credentials are never returned.",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: {
        params: TenantIdParam,
        body: { content: { "application/json": { schema: CatalogBody } }, required: true },
      },
      responses: {
        201: json(CatalogRecord, "The catalog record (no credentials)"),
        404: json(ErrorBody, "No such tenant"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const identity = c.get("identity") as UserIdentity;
      const body = c.req.valid("json");
      const saved = await deps.lakehouse.upsertCatalog(identity, c.req.valid("param").tenant_id, body);
      c.get("log").logger.info(
        { catalog_id: saved.id, catalog_name: saved.catalog_name, has_secret: body.s3_secret_key_enc !== null },
        "lakehouse catalog provisioned",
      );
      return c.json(catalogRecord(saved), 201);
    },
    redactingHook,
  );
}

function registerActiveCatalog(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/tenants/{tenant_id}/catalog",
      tags: TAGS,
      summary: "The tenant's active lakehouse catalog",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: TenantIdParam },
      responses: {
        200: json(ActiveCatalog, "The active catalog"),
        404: json(ErrorBody, "No such tenant, or no active catalog provisioned"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const identity = c.get("identity") as UserIdentity;
      const cat = await deps.lakehouse.activeCatalog(identity, c.req.valid("param").tenant_id);
      const { id, tenant_id, tenant_slug, catalog_name, is_active, provisioned_at } = cat;
      return c.json({ id, tenant_id, tenant_slug, catalog_name, is_active, provisioned_at }, 200);
    },
  );
}

function registerCatalogList(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/lakehouse/catalogs",
      tags: TAGS,
      summary: "Lakehouse catalogs of the caller's tenant, newest provisioned first",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(z.array(CatalogListItem), "Catalogs"), ...AUTH_ERRORS },
    }),
    async (c) => {
      const identity = c.get("identity") as UserIdentity;
      const list = await deps.lakehouse.listCatalogs(identity);
      return c.json(
        list.map((x) => ({
          id: x.id,
          tenant_id: x.tenant_id,
          tenant_slug: x.tenant_slug,
          catalog_name: x.catalog_name,
          catalog_type: x.catalog_type,
          is_active: x.is_active,
          provisioned_at: x.provisioned_at,
        })),
        200,
      );
    },
  );
}
