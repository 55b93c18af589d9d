/**
 * Foundry (spec 4.9): the tenant's tables and datasets. JWT only; the Foundry service
 * scopes every call to the caller's tenant.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { registerFoundryAgentRoutes } from "./agents.ts";
import { registerFoundryDatasetRoutes } from "./datasets.ts";
import { registerFoundryModelRoutes } from "./models.ts";
import { registerFoundryQueryRoutes } from "./query.ts";
import { registerFoundryReadModelRoutes } from "./readmodels.ts";
import { registerFoundryServingRoutes } from "./serving.ts";
import { registerFoundryTableRoutes } from "./tables.ts";
import { registerFoundryTuningRoutes } from "./tuning.ts";

export function registerFoundryRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  registerFoundryTableRoutes(app, deps, guards);
  registerFoundryDatasetRoutes(app, deps, guards);
  registerFoundryReadModelRoutes(app, deps, guards);
  registerFoundryQueryRoutes(app, deps, guards);
  registerFoundryModelRoutes(app, deps, guards);
  registerFoundryTuningRoutes(app, deps, guards);
  registerFoundryServingRoutes(app, deps, guards);
  registerFoundryAgentRoutes(app, deps, guards);
}
