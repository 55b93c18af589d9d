/**
 * Editor documents in the control plane (spec 2.12): metadata, members and both
 * representations of the content. The ports over them (`EditorDocumentStore`, the SQL
 * adapter in adapters/editor; `StateMerger`) are in ports.ts.
 */
export const EDITOR_ROLES = ["viewer", "editor", "owner"] as const;
export type EditorRole = (typeof EDITOR_ROLES)[number];

/** The Y.Doc field that holds the rich text (Tiptap's Collaboration extension default). */
export const YDOC_FIELD = "default";

export interface UpdatedBy {
  updated_by_type: string;
  updated_by_id: string;
}

/** A document's content as ProseMirror JSON (see ydoc.ts). */
export type DocAst = Record<string, unknown>;

/**
 * What a user of the tenant who is neither owner nor member gets: nothing (`none`), or
 * read or write access for everyone in the tenant (as "anyone in the organisation").
 */
export const GENERAL_ACCESS = ["none", "viewer", "editor"] as const;
export type GeneralAccess = (typeof GENERAL_ACCESS)[number];

/** Roles a member can be given (ownership is a property of the document, not a grant). */
export const MEMBER_ROLES = ["viewer", "editor"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export interface EditorDocumentMeta {
  doc_id: string;
  tenant_id: string;
  title: string;
  owner_id: number;
  general_access: GeneralAccess;
  /** Increases by one for every stored content change. */
  version: number;
  created_at: string;
  created_by: number;
  updated_at: string;
  updated_by_type: string;
  updated_by_id: string;
}

export interface EditorDocumentRow extends EditorDocumentMeta {
  doc_ast: DocAst;
}

export interface EditorMember {
  user_id: number;
  role: MemberRole;
  granted_at: string;
  granted_by: number;
}

/** A listed document with the caller's member role (null when not a member). */
export interface ListedDocument extends EditorDocumentMeta {
  member_role: MemberRole | null;
}

export interface NewEditorDocument {
  doc_id: string;
  tenant_id: string;
  title: string;
  owner_id: number;
  general_access: GeneralAccess;
  state: Uint8Array | null;
  doc_ast: DocAst;
  at: string;
}

export interface ListQuery {
  tenantId: string;
  userId: number;
  limit: number;
  /** Keyset position: documents updated before (updated_at, doc_id). */
  after?: { updated_at: string; doc_id: string };
}
