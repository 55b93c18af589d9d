/** The dashboard's API-key management: list, create (bounded per tier), revoke. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono/types";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { UserService } from "../../../domain/user/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { ApiKeyInfo, CreatedApiKey, NewApiKeyBody } from "./schema.ts";

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

export function registerApiKeyRoutes(app: OpenAPIHono<AppEnv>, user: UserService, guards: Guards): void {
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
    async (c) => c.json({ api_keys: await user.listApiKeys((c.get("identity") as UserIdentity).user) }, 200),
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
      // The body is optional: without one (no Content-Type) the validator hands over {}
      // unvalidated, so the defaults come from the schema here.
      const body = NewApiKeyBody.parse(c.req.valid("json") ?? {});
      return c.json(await user.createApiKey((c.get("identity") as UserIdentity).user, body.label), 201);
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
      await user.revokeApiKey((c.get("identity") as UserIdentity).user, c.req.valid("param").key_id);
      return c.body(null, 204);
    },
  );
}
