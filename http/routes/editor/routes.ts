/**
 * Collaborative editor REST (spec 4.7, 5): documents and their doc_ast view (X-API-Key
 * together with a Bearer JWT; the JWT's user is the caller), the collaboration server's
 * internal state load and store (X-Collab-Secret) and its auth webhook (the JWT in the body).
 * Sharing endpoints (create, members, general access) are Cairn's; see docs/editor.md.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { EditorService } from "../../../domain/editor/index.ts";
import { isYjsUpdate, parseDocAst } from "../../../domain/editor/index.ts";
import { AppError } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json, ValidationBody } from "../../schemas.ts";
import {
  AccessBody,
  AuthBody,
  AuthResult,
  CreateBody,
  DocIdParam,
  DocumentBody,
  DocumentList,
  DocumentSummary,
  GetYjsResult,
  ListQuery,
  Member,
  MemberBody,
  MemberList,
  MemberParam,
  PatchBody,
  PutYjsBody,
  PutYjsResult,
} from "./schema.ts";

/** doc_ast bodies (PATCH, POST). */
export const MAX_DOC_BODY_BYTES = 8 * 1024 * 1024;
/** CRDT states from the collaboration server (base64 inflates by a third). */
export const MAX_YJS_BODY_BYTES = 48 * 1024 * 1024;

const TAG = "Collaborative editor";

const limit = (maxSize: number): MiddlewareHandler<AppEnv> =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("payload_too_large", `The request body exceeds ${maxSize} bytes`);
    },
  });

const NOT_FOUND = { 404: json(ErrorBody, "No such document in the caller's tenant") };

/** doc_ast as a checked ProseMirror node, or the section 7 body pointing into the tree. */
function checkedDocAst(value: unknown) {
  const parsed = parseDocAst(value);
  if (!parsed.ok) throw AppError.validation(parsed.issues);
  return parsed.node;
}

export function registerEditorRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const editor: EditorService = deps.editor;
  const user = (c: { get(key: "identity"): unknown }) => c.get("identity") as UserIdentity;

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
