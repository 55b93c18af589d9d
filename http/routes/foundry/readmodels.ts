/** Portfolios, watchlists and holdings (the pm.* read model) and the read-model catalogue. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";

export function registerFoundryReadModelRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  void app;
  void deps;
  void guards;
}
