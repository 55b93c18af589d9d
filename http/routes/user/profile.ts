/** GET /v1/user/me (spec 2.1, 4.3): the caller's profile, tier limits and usage. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { UserService } from "../../../domain/user/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, json } from "../../schemas.ts";
import { UserProfile } from "./schema.ts";

export function registerProfileRoutes(app: OpenAPIHono<AppEnv>, user: UserService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/user/me",
      tags: ["User"],
      summary: "The caller's profile, tier limits and usage",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(UserProfile, "User profile"), ...AUTH_ERRORS },
    }),
    async (c) => c.json(await user.profile((c.get("identity") as UserIdentity).user), 200),
  );
}
