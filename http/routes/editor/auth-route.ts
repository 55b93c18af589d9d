/** Internal webhook POST /v1/editor/hocuspocus/auth: may this JWT open this room, and read-only? */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { EditorService } from "../../../domain/editor/index.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { ErrorBody, json, ValidationBody } from "../../schemas.ts";
import { NOT_FOUND, TAG } from "./common.ts";
import { AuthBody, AuthResult } from "./schema.ts";

export function registerEditorAuthRoute(app: OpenAPIHono<AppEnv>, editor: EditorService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/editor/hocuspocus/auth",
      tags: [TAG],
      summary: "Internal webhook: may this JWT open this room, and read-only?",
      description:
        "Verifies the JWT in the body, computes the user's role on the document and answers read_only true " +
        "for viewers. 401: bad token; 404: no such document in the user's tenant; 403: no role on it.",
      security: SECURITY.none,
      middleware: guards.none,
      request: { body: { content: { "application/json": { schema: AuthBody } }, required: true } },
      responses: {
        200: json(AuthResult, "Allowed"),
        401: json(ErrorBody, "Missing or invalid token"),
        403: json(ErrorBody, "No role on the document, or tenant not active"),
        ...NOT_FOUND,
        422: json(ValidationBody, "Invalid body"),
      },
    }),
    async (c) => {
      const { token, documentName } = c.req.valid("json");
      const { grant, user: u } = await editor.authorize(token, documentName);
      return c.json(
        {
          read_only: grant.readOnly,
          role: grant.role,
          doc_id: documentName.toLowerCase(),
          tenant_id: grant.tenantId,
          user: u,
        },
        200,
      );
    },
  );
}
