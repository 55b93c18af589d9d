/** PATCH /v1/editor/documents/{doc_id}: doc_ast applied to the live document as a minimal diff. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { EditorService } from "../../../domain/editor/index.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { checkedDocAst, limit, MAX_DOC_BODY_BYTES, NOT_FOUND, TAG, user } from "./common.ts";
import { DocIdParam, DocumentBody, PatchBody } from "./schema.ts";

export function registerEditorPatchRoute(app: OpenAPIHono<AppEnv>, editor: EditorService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/editor/documents/{doc_id}",
      tags: [TAG],
      summary: "Store doc_ast (editors and owners): applied to the live document as a minimal diff; re-indexed",
      description:
        "The new tree is applied to the document's Y.Doc in one transaction (the open room when people are " +
        "editing, so they see the change and their concurrent edits are kept). The response is the stored " +
        "document, including such concurrent edits. A search re-index follows asynchronously.",
      security: SECURITY.api_key_and_jwt,
      middleware: [...guards.api_key_and_jwt, limit(MAX_DOC_BODY_BYTES)],
      request: {
        params: DocIdParam,
        body: { content: { "application/json": { schema: PatchBody } }, required: true },
      },
      responses: {
        200: json(DocumentBody, "The document after the change"),
        ...NOT_FOUND,
        413: json(ErrorBody, "Body too large"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const docId = c.req.valid("param").doc_id;
      const body = c.req.valid("json");
      const node = checkedDocAst(body.doc_ast);
      const doc = await editor.patch(user(c), docId, {
        doc_ast: node,
        title: body.title,
        by: { updated_by_type: body.updated_by_type, updated_by_id: body.updated_by_id },
      });
      return c.json(doc, 200);
    },
  );
}
