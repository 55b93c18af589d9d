/** Collaborative editor documents (spec 2.12, 4.7): public surface of domain/editor. */
export * from "./ports.ts";
export {
  EDITOR_FORMAT,
  EDITOR_REINDEX_QUEUE,
  type EditorChunker,
  type EditorReindexDeps,
  makeEditorReindexHandler,
  type ReindexJob,
  startEditorReindexWorker,
} from "./reindex.ts";
export { atLeast, type Caller, canWriteInTenant, effectiveRole, indexAcl, WRITER_TENANT_ROLES } from "./roles.ts";
export { editorSchema, emptyDoc, MAX_DOC_DEPTH, type ParsedDocAst, parseDocAst } from "./schema.ts";
export { EditorService, type EditorServiceDeps, REST_PATCH_ORIGIN } from "./service.ts";
export { StoredDocRooms } from "./stored-rooms.ts";
export { docAstToTextBlocks } from "./text.ts";
export * from "./types.ts";
export { type DocumentView, type MemberView, toView } from "./view.ts";
export { applyDocAst, docAstOf, docAstOfState, docFromState, isYjsUpdate, mergeStates } from "./ydoc.ts";
