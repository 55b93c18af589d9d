/** /v1/user/* (spec 2.1, 4.3): the caller's profile and the dashboard's API-key management. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { registerApiKeyRoutes } from "./api-keys.ts";
import { registerProfileRoutes } from "./profile.ts";

export function registerUserRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  // Registration order is the OpenAPI document's order.
  registerProfileRoutes(app, deps.user, guards);
  registerApiKeyRoutes(app, deps.user, guards);
}
