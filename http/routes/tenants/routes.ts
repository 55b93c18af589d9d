/** Tenant administration (spec 4.1), restricted to the admin-consumer key. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { registerTenantCollectionRoutes } from "./collection.ts";
import { registerSingleTenantRoutes } from "./tenant.ts";

export function registerTenantRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  // Registration order is the OpenAPI document's order.
  registerTenantCollectionRoutes(app, deps.tenants, guards);
  registerSingleTenantRoutes(app, deps.tenants, guards);
}
