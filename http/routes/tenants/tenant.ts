/** /v1/admin/tenants/{slug}* (spec 4.1): status, deactivation, the initial admin key. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { TenantsService } from "../../../domain/tenants/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { SlugParam, TenantStatus } from "./schema.ts";

export function registerSingleTenantRoutes(app: OpenAPIHono<AppEnv>, tenants: TenantsService, guards: Guards): void {
  const admin = { security: SECURITY.admin_key, middleware: guards.admin_key, tags: ["Tenant administration"] };

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
    async (c) => c.json(await tenants.status(c.req.valid("param").slug), 200),
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
      await tenants.deactivate(c.req.valid("param").slug);
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
    async (c) => c.json(await tenants.claimInitialKey(c.req.valid("param").slug), 200),
  );
}
