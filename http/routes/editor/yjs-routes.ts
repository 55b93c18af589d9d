/** Internal: the collaboration server loads and stores a document's CRDT state (X-Collab-Secret). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { type EditorService, isYjsUpdate } from "../../../domain/editor/index.ts";
import { AppError } from "../../../domain/errors.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { ErrorBody, json, ValidationBody } from "../../schemas.ts";
import { limit, MAX_YJS_BODY_BYTES, NOT_FOUND, TAG } from "./common.ts";
import { DocIdParam, GetYjsResult, PutYjsBody, PutYjsResult } from "./schema.ts";

export function registerEditorYjsRoutes(app: OpenAPIHono<AppEnv>, editor: EditorService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/editor/documents/{doc_id}/yjs",
      tags: [TAG],
      summary: "Internal: the collaboration server loads a document's CRDT state",
      description:
        "The stored `Y.encodeStateAsUpdate(doc)` as base64, or null for a document never edited (created without " +
        "doc_ast and never stored since). A collaboration deployment apart from the API loads rooms with it.",
      security: SECURITY.collab_secret,
      middleware: guards.collab_secret,
      request: { params: DocIdParam },
      responses: {
        200: json(GetYjsResult, "The stored state"),
        401: json(ErrorBody, "Missing or wrong X-Collab-Secret"),
        404: json(ErrorBody, "No such document"),
      },
    }),
    async (c) => {
      const state = await editor.loadState(c.req.valid("param").doc_id);
      const yjs_state =
        state === null ? null : Buffer.from(state.buffer, state.byteOffset, state.byteLength).toString("base64");
      c.header("Cache-Control", "no-store");
      return c.json({ yjs_state }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/editor/documents/{doc_id}/yjs",
      tags: [TAG],
      summary: "Internal: the collaboration server stores a document's CRDT state",
      description:
        "The state is merged with the stored one (a stale writer never erases newer updates); doc_ast is derived " +
        "from the result; an unchanged state writes nothing (`changed: false`).",
      security: SECURITY.collab_secret,
      middleware: [...guards.collab_secret, limit(MAX_YJS_BODY_BYTES)],
      request: {
        params: DocIdParam,
        body: { content: { "application/json": { schema: PutYjsBody } }, required: true },
      },
      responses: {
        200: json(PutYjsResult, "Stored"),
        401: json(ErrorBody, "Missing or wrong X-Collab-Secret"),
        ...NOT_FOUND,
        409: json(ErrorBody, "The document kept changing; retry"),
        413: json(ErrorBody, "Body too large"),
        422: json(ValidationBody, "Not a base64 Yjs update"),
      },
    }),
    async (c) => {
      const docId = c.req.valid("param").doc_id;
      const body = c.req.valid("json");
      const state = new Uint8Array(Buffer.from(body.yjs_state, "base64"));
      if (!isYjsUpdate(state)) {
        throw AppError.validation([
          {
            loc: ["body", "yjs_state"],
            msg: "Input should be the base64 encoding of a Yjs update",
            type: "value_error",
            input: body.yjs_state.length > 64 ? `${body.yjs_state.slice(0, 64)}…` : body.yjs_state,
            ctx: {},
          },
        ]);
      }
      const stored = await editor.storeState(docId, state, {
        updated_by_type: body.updated_by_type ?? "collab",
        updated_by_id: body.updated_by_id ?? "collaboration-server",
      });
      return c.json(stored, 200);
    },
  );
}
