/** POST /v1/foundry/query: natural-language data access. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";

export function registerFoundryQueryRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  void app;
  void deps;
  void guards;
}
