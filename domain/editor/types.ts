/**
 * Editor documents in the control plane (spec 2.12): metadata, members and both
 * representations of the content. `EditorDocumentStore` is the port the SQL adapter
 * (adapters/editor) implements on SQLite and Postgres.
 */
import type { EditorRole, UpdatedBy } from "./ports.ts";
import type { DocAst } from "./ydoc.ts";

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

export interface EditorDocumentStore {
  create(doc: NewEditorDocument): Promise<EditorDocumentRow>;
  /** The document within the tenant, or null (another tenant's document is null too). */
  get(tenantId: string, docId: string): Promise<EditorDocumentRow | null>;
  getMeta(tenantId: string, docId: string): Promise<EditorDocumentMeta | null>;
  /** By id alone, for the collaboration server (authenticated by the shared secret). */
  getForCollab(docId: string): Promise<{ tenant_id: string; state: Uint8Array | null; version: number } | null>;
  /**
   * Writes state and doc_ast only while the stored version is `expectedVersion`
   * (compare-and-set); returns the new version, or null when another writer came first.
   */
  putContent(
    docId: string,
    expectedVersion: number,
    content: { state: Uint8Array; doc_ast: DocAst; by: UpdatedBy; at: string },
  ): Promise<number | null>;
  setTitle(tenantId: string, docId: string, title: string, at: string): Promise<void>;
  setGeneralAccess(tenantId: string, docId: string, access: GeneralAccess): Promise<void>;
  /** Documents the user owns, is a member of, or that are open to the tenant; newest update first. */
  listVisible(q: ListQuery): Promise<ListedDocument[]>;

  memberRole(docId: string, userId: number): Promise<MemberRole | null>;
  listMembers(docId: string): Promise<EditorMember[]>;
  putMember(docId: string, member: EditorMember): Promise<void>;
  deleteMember(docId: string, userId: number): Promise<boolean>;

  /** Generation counter for the search index: bumped on every content or access change. */
  bumpIndexGeneration(docId: string): Promise<number>;
  /** Records that generation `gen` is indexed unless a newer one already is; false when stale. */
  markIndexed(docId: string, gen: number): Promise<boolean>;
  indexState(docId: string): Promise<{ generation: number; indexed: number } | null>;
}

/**
 * Merges a stored CRDT state with an incoming one and derives doc_ast (see ydoc.ts
 * `mergeStates`). Large documents take tens of milliseconds or more, so the service's
 * implementation runs it on worker threads (adapters/editor/merge-pool.ts).
 */
export interface StateMerger {
  merge(stored: Uint8Array | null, incoming: Uint8Array): Promise<{ state: Uint8Array; docAst: DocAst }>;
  close(): Promise<void>;
}

export type { EditorRole };
