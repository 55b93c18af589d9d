/** GET /v1/user/me (spec 2.1, 4.3) and the dashboard's API-key management. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono/types";
import { AppError } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import { generateApiKey } from "../../../domain/user/api-keys.ts";
import { TIER_LIMITS } from "../../../domain/user/tiers.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { ApiKeyInfo, CreatedApiKey, NewApiKeyBody, UserProfile } from "./schema.ts";

/**
 * The body of POST /v1/user/api-keys is optional: an empty one under a JSON Content-Type
 * means the same as none (the defaults), not a JSON decode error.
 */
const emptyBodyIsNone: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.raw.body && (await c.req.text()).trim() === "") {
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-type");
    c.req.raw = new Request(c.req.raw, { headers, body: null });
  }
  await next();
};

export function registerUserRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
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
    async (c) => {
      const { user } = c.get("identity") as UserIdentity;
      const usage = await deps.usage.usage(user.id);
      return c.json(
        {
          id: user.id,
          email: user.email,
          name: user.name,
          tier: user.tier,
          email_verified: user.email_verified,
          created_at: user.created_at,
          limits: { ...TIER_LIMITS[user.tier] },
          current_usage: usage,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/user/api-keys",
      tags: ["User"],
      summary: "List the caller's API keys (never the keys themselves)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(z.object({ api_keys: z.array(ApiKeyInfo) }), "API keys"), ...AUTH_ERRORS },
    }),
    async (c) => {
      const { user } = c.get("identity") as UserIdentity;
      const keys = await deps.store.listApiKeys(user.id);
      return c.json({ api_keys: keys.map(({ user_id: _, ...k }) => k) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/user/api-keys",
      tags: ["User"],
      summary: "Create an API key (bounded per tier)",
      security: SECURITY.jwt,
      middleware: [...guards.jwt, emptyBodyIsNone],
      request: { body: { content: { "application/json": { schema: NewApiKeyBody } }, required: false } },
      responses: {
        201: json(CreatedApiKey, "The new key, shown once"),
        409: json(ErrorBody, "The tier's API-key limit is reached"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { user } = c.get("identity") as UserIdentity;
      // The body is optional: without one (no Content-Type) the validator hands over {}
      // unvalidated, so the defaults come from the schema here.
      const body = NewApiKeyBody.parse(c.req.valid("json") ?? {});
      const made = generateApiKey();
      const max = TIER_LIMITS[user.tier].api_keys;
      const rec = await deps.store.createApiKey({
        userId: user.id,
        hash: made.hash,
        prefix: made.prefix,
        label: body.label,
        maxKeys: max,
      });
      if (!rec) throw new AppError("conflict", `API key limit reached: the ${user.tier} tier allows ${max}`);
      const { user_id: _, ...info } = rec;
      return c.json({ ...info, key: made.key }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/user/api-keys/{key_id}",
      tags: ["User"],
      summary: "Revoke one of the caller's API keys",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: z.object({ key_id: z.string().uuid() }) },
      responses: { 204: { description: "Revoked" }, 404: json(ErrorBody, "No such key"), ...AUTH_ERRORS },
    }),
    async (c) => {
      const { user } = c.get("identity") as UserIdentity;
      const keyId = c.req.valid("param").key_id;
      const ok = await deps.store.deleteApiKey(user.id, keyId);
      if (!ok) throw new AppError("not_found", "No API key with that id");
      deps.auth.forgetApiKey(keyId);
      return c.body(null, 204);
    },
  );
}
