/** Lakehouse catalogs and sync targets (spec 4.2); the health probe lives with the ops routes. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { registerCatalogRoutes } from "./catalog-routes.ts";
import { registerSyncTargetRoutes } from "./sync-routes.ts";

export function registerLakehouseRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  registerCatalogRoutes(app, deps, guards);
  registerSyncTargetRoutes(app, deps, guards);
}
