/** POST and GET /v1/admin/tenants (spec 4.1): create or resume a tenant, list them all. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { TenantsService } from "../../../domain/tenants/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { NewTenantBody, TenantSummary } from "./schema.ts";

export function registerTenantCollectionRoutes(
  app: OpenAPIHono<AppEnv>,
  tenants: TenantsService,
  guards: Guards,
): void {
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
    async (c) => c.json(await tenants.createOrResume(c.req.valid("json")), 202),
  );

  app.openapi(
    createRoute({
      ...admin,
      method: "get",
      path: "/v1/admin/tenants",
      summary: "Every tenant, whatever its state",
      responses: { 200: json(z.array(TenantSummary), "Tenants"), ...AUTH_ERRORS },
    }),
    async (c) => c.json(await tenants.list(), 200),
  );
}
