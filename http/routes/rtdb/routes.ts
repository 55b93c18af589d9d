/**
 * Real-time tables (spec 2.9, 4.8): create with the QuestDB CREATE TABLE subset, list,
 * describe and measure. JWT only; the rtdb service scopes every call to the caller's
 * tenant namespace, and a tenant whose time-series namespace is not provisioned gets 503
 * (as documents do).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { registerRtdbStorageRoute } from "./storage-routes.ts";
import { registerRtdbTableRoutes } from "./tables-routes.ts";

export function registerRtdbRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  registerRtdbTableRoutes(app, deps, guards);
  registerRtdbStorageRoute(app, deps, guards);
}
