/** Tenant administration (spec 4.1), restricted to the admin-consumer key. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Tenant } from "../../../domain/ports.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { NewTenantBody, SlugParam, TenantStatus, TenantSummary } from "./schema.ts";

const summary = (t: Tenant) => ({
  tenant_id: t.tenant_id,
  slug: t.slug,
  display_name: t.display_name,
  tier: t.tier,
  region: t.region,
  provisioning_state: t.provisioning_state,
  is_active: t.is_active,
  provisioned_at: t.provisioned_at,
});

export function registerTenantRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const admin = { security: SECURITY.admin_key, middleware: guards.admin_key, tags: ["Tenant administration"] };

  app.openapi(
    createRoute({
      ...admin,
      method: "post",
      path: "/v1/admin/tenants",
      summary: "Create a tenant (starts the 9-step provisioning pipeline) or resume a failed one",
      request: { body: { content: { "application/json": { schema: NewTenantBody } }, required: true } },
      responses: {
        202: json(TenantSummary, "Accepted: provisioning runs asynchronously; poll the status"),
        409: json(ErrorBody, "A tenant with this slug is active or deprovisioned"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(summary(await deps.tenantAdmin.createOrResume(c.req.valid("json"))), 202),
  );

  app.openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/v1/admin/tenants",
      summary: "Every tenant, whatever its state",
      responses: { 200: json(z.array(TenantSummary), "Tenants"), ...AUTH_ERRORS },
    }),
    async (c) => c.json((await deps.store.listTenants()).map(summary), 200),
  );

  app.openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/v1/admin/tenants/{slug}/status",
      summary: "Provisioning status: completed and failed steps, last error",
      request: { params: SlugParam },
      responses: {
        200: json(TenantStatus, "Status"),
        404: json(ErrorBody, "No tenant with that slug"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.tenantAdmin.status(c.req.valid("param").slug), 200),
  );

  app.openapi(
    createRoute({
      ...admin,
      method: "delete",
      path: "/v1/admin/tenants/{slug}",
      summary: "Soft-deactivate a tenant (no data is deleted; routing stops at once)",
      request: { params: SlugParam },
      responses: {
        204: { description: "Deactivated" },
        404: json(ErrorBody, "No tenant with that slug"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      await deps.tenantAdmin.deactivate(c.req.valid("param").slug);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      ...admin,
      method: "post",
      path: "/v1/admin/tenants/{slug}/initial-api-key",
      summary: "Hand over the tenant admin's initial API key (once)",
      request: { params: SlugParam },
      responses: {
        200: json(z.object({ email: z.string(), api_key: z.string() }), "The key, shown once"),
        404: json(ErrorBody, "No such tenant, or the key was already handed over"),
        409: json(ErrorBody, "The tenant is not active yet"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.tenantAdmin.claimInitialKey(c.req.valid("param").slug), 200),
  );
}
