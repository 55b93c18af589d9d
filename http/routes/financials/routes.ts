/**
 * Financial data (spec 4.4): ratios and income statements per CIK, company facts and
 * revenue segments. API-key routes (spec 5). Reads are materialised rows (ingested by
 * pipelines/financials/sec); an unknown CIK is a 404, a known one with no rows an empty list
 * (decided by the FinancialsService). Responses go through one shared response cache.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { cachedJson, ResponseCache } from "./cache.ts";
import { registerCompanyRoutes } from "./company-routes.ts";
import { registerStatementRoutes } from "./statement-routes.ts";

export function registerFinancialRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const generation = deps.financials.generation;
  const cached = cachedJson(new ResponseCache(generation ? { generation } : {}));
  registerStatementRoutes(app, deps.financials, guards, cached);
  registerCompanyRoutes(app, deps.financials, guards, cached);
}
