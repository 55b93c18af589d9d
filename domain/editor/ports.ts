/**
 * Collaborative editor (spec 2.12, 4.7): the ports EditorService and the Yjs rooms (sockets/editor,
 * actors/editor) meet through, and the ones adapters/editor implements.
 *
 * - Rooms persist and load CRDT state through `CollabPersistence`; in-process it calls the
 *   same service function the internal `PUT /v1/editor/documents/{id}/yjs` handler calls, and
 *   over HTTP it calls that endpoint with the shared secret (collab server deployed apart).
 * - Rooms authorise a connection through `CollabAuthorizer`, the same rules as the
 *   `POST /v1/editor/hocuspocus/auth` webhook (in-process, or that webhook over HTTP).
 * - The REST PATCH applies doc_ast to a live room through `LiveRooms` so collaborators see it.
 * - Documents are kept by an `EditorDocumentStore` (SQL, adapters/editor) and CRDT states
 *   merged by a `StateMerger` (worker threads, adapters/editor/merge-pool.ts).
 */
import type * as Y from "yjs";
import type {
  DocAst,
  EditorDocumentMeta,
  EditorDocumentRow,
  EditorMember,
  EditorRole,
  GeneralAccess,
  ListedDocument,
  ListQuery,
  MemberRole,
  NewEditorDocument,
  UpdatedBy,
} from "./types.ts";

export interface CollabPersistence {
  /** The stored CRDT state, or null for a document that has never been edited. Throws when the store fails. */
  load(docId: string): Promise<Uint8Array | null>;
  /** Stores the full CRDT state (Y.encodeStateAsUpdate). Throws when the store fails. */
  store(docId: string, state: Uint8Array, by: UpdatedBy): Promise<void>;
}

export interface CollabGrant {
  readOnly: boolean;
  role: EditorRole;
  tenantId: string;
  userId: number;
}

export interface CollabAuthorizer {
  /** Verifies the user JWT and computes the role on the document; throws AppError (401/403/404) when refused. */
  authorize(token: string, documentName: string): Promise<CollabGrant>;
}

export interface LiveRooms {
  /**
   * Runs `fn` on the document's Y.Doc inside one transaction with `origin`: the live room when
   * one is open (anywhere: the update reaches collaborators on every instance), otherwise a
   * room loaded for the call (single-flight with connecting clients). Resolves once the new
   * state has been persisted through CollabPersistence; the room unloads again if nobody is in it.
   * `by` (optional, additive) names who made the change: the store that persists it records
   * it as updated_by (a REST PATCH passes the caller or the body's updated_by_*).
   */
  withDoc(docId: string, origin: unknown, fn: (doc: Y.Doc) => void, by?: UpdatedBy): Promise<void>;
}

/**
 * Someone's access to editor documents changed (a member's role, a document's general
 * access; possibly a narrowing): every open collaboration connection it concerns re-checks
 * its grant at once, on every instance, and is downgraded or closed if it lost rights.
 */
export interface AccessChange {
  tenantId: string;
  /** The document, or null for every document of the tenant. */
  docId: string | null;
  /** The user, or null for everybody on the document. */
  userId: number | null;
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
