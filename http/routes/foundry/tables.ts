/** GET/POST /v1/foundry/tables: the tenant's lakehouse tables and custom-table import. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";

export function registerFoundryTableRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  void app;
  void deps;
  void guards;
}
