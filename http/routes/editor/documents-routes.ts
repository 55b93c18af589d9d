/** Editor documents (spec 4.7): list, create and read (X-API-Key with a Bearer JWT). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { EditorService } from "../../../domain/editor/index.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { checkedDocAst, limit, MAX_DOC_BODY_BYTES, NOT_FOUND, TAG, user } from "./common.ts";
import { CreateBody, DocIdParam, DocumentBody, DocumentList, ListQuery } from "./schema.ts";

export function registerEditorDocumentRoutes(app: OpenAPIHono<AppEnv>, editor: EditorService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/editor/documents",
      tags: [TAG],
      summary: "Documents the caller can open, newest update first, each with its room name and my_role",
      security: SECURITY.api_key_and_jwt,
      middleware: guards.api_key_and_jwt,
      request: { query: ListQuery },
      responses: { 200: json(DocumentList, "Documents"), ...AUTH_ERRORS },
    }),
    async (c) => c.json(await editor.list(user(c), c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/editor/documents",
      tags: [TAG],
      summary: "Create a document; the caller becomes its owner",
      security: SECURITY.api_key_and_jwt,
      middleware: [...guards.api_key_and_jwt, limit(MAX_DOC_BODY_BYTES)],
      request: { body: { content: { "application/json": { schema: CreateBody } }, required: true } },
      responses: {
        201: json(DocumentBody, "Created"),
        413: json(ErrorBody, "Body too large"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const docAst = body.doc_ast === undefined ? undefined : checkedDocAst(body.doc_ast);
      const created = await editor.create(user(c), {
        title: body.title,
        doc_ast: docAst,
        general_access: body.general_access,
      });
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/editor/documents/{doc_id}",
      tags: [TAG],
      summary: "A document: metadata, my_role and doc_ast",
      security: SECURITY.api_key_and_jwt,
      middleware: guards.api_key_and_jwt,
      request: { params: DocIdParam },
      responses: { 200: json(DocumentBody, "The document"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await editor.get(user(c), c.req.valid("param").doc_id), 200),
  );
}
