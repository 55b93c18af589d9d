/**
 * Collaborative editor REST (spec 4.7, 5): documents and their doc_ast view (X-API-Key
 * together with a Bearer JWT; the JWT's user is the caller), the collaboration server's
 * internal state load and store (X-Collab-Secret) and its auth webhook (the JWT in the body).
 * Sharing endpoints (create, members, general access) are Cairn's; see docs/editor.md.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { EditorService } from "../../../domain/editor/index.ts";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { registerEditorAuthRoute } from "./auth-route.ts";
import { registerEditorDocumentRoutes } from "./documents-routes.ts";
import { registerEditorPatchRoute } from "./patch-route.ts";
import { registerEditorAccessRoute, registerEditorMemberRoutes } from "./sharing-routes.ts";
import { registerEditorYjsRoutes } from "./yjs-routes.ts";

/** Every editor route, in the OpenAPI document's order. */
export function registerEditorRoutes(app: OpenAPIHono<AppEnv>, editor: EditorService, guards: Guards): void {
  registerEditorDocumentRoutes(app, editor, guards);
  registerEditorPatchRoute(app, editor, guards);
  registerEditorYjsRoutes(app, editor, guards);
  registerEditorAuthRoute(app, editor, guards);
  registerEditorMemberRoutes(app, editor, guards);
  registerEditorAccessRoute(app, editor, guards);
}
