/** Sharing (Cairn's, see docs/editor.md): members and the tenant-wide general access (owners change them). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { EditorService } from "../../../domain/editor/index.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { NOT_FOUND, TAG, user } from "./common.ts";
import { AccessBody, DocIdParam, DocumentSummary, Member, MemberBody, MemberList, MemberParam } from "./schema.ts";

/** Who has access, and granting or revoking a member. */
export function registerEditorMemberRoutes(app: OpenAPIHono<AppEnv>, editor: EditorService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/editor/documents/{doc_id}/members",
      tags: [TAG],
      summary: "Who has access: the owner, the members and the tenant-wide access",
      security: SECURITY.api_key_and_jwt,
      middleware: guards.api_key_and_jwt,
      request: { params: DocIdParam },
      responses: { 200: json(MemberList, "Members"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await editor.members(user(c), c.req.valid("param").doc_id), 200),
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/editor/documents/{doc_id}/members/{user_id}",
      tags: [TAG],
      summary: "Grant or change a member's role (owner only)",
      security: SECURITY.api_key_and_jwt,
      middleware: guards.api_key_and_jwt,
      request: {
        params: MemberParam,
        body: { content: { "application/json": { schema: MemberBody } }, required: true },
      },
      responses: {
        200: json(Member, "The grant"),
        404: json(ErrorBody, "No such document or no such user in the tenant"),
        409: json(ErrorBody, "The user owns the document"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { doc_id, user_id } = c.req.valid("param");
      return c.json(await editor.putMember(user(c), doc_id, user_id, c.req.valid("json").role), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/editor/documents/{doc_id}/members/{user_id}",
      tags: [TAG],
      summary: "Revoke a member (owner only)",
      security: SECURITY.api_key_and_jwt,
      middleware: guards.api_key_and_jwt,
      request: { params: MemberParam },
      responses: {
        204: { description: "Revoked" },
        404: json(ErrorBody, "No such document or member"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { doc_id, user_id } = c.req.valid("param");
      await editor.deleteMember(user(c), doc_id, user_id);
      return c.body(null, 204);
    },
  );
}

/** What every other user of the tenant gets. */
export function registerEditorAccessRoute(app: OpenAPIHono<AppEnv>, editor: EditorService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/editor/documents/{doc_id}/access",
      tags: [TAG],
      summary: "Set what every other user of the tenant gets: none, viewer or editor (owner only)",
      security: SECURITY.api_key_and_jwt,
      middleware: guards.api_key_and_jwt,
      request: {
        params: DocIdParam,
        body: { content: { "application/json": { schema: AccessBody } }, required: true },
      },
      responses: { 200: json(DocumentSummary, "The document"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => {
      const docId = c.req.valid("param").doc_id;
      return c.json(await editor.setGeneralAccess(user(c), docId, c.req.valid("json").general_access), 200);
    },
  );
}
