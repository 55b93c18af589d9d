/**
 * Collaborative editor (spec 2.12, 4.7): the seams between the Yjs room actors (sockets/editor,
 * actors/collab-*) and the editor documents (domain/editor, http/routes/editor).
 *
 * - Rooms persist and load CRDT state through `CollabPersistence`; in-process it calls the
 *   same service function the internal `PUT /v1/editor/documents/{id}/yjs` handler calls, and
 *   over HTTP it calls that endpoint with the shared secret (collab server deployed apart).
 * - Rooms authorise a connection through `CollabAuthorizer`, the same rules as the
 *   `POST /v1/editor/hocuspocus/auth` webhook (in-process, or that webhook over HTTP).
 * - The REST PATCH applies doc_ast to a live room through `LiveRooms` so collaborators see it.
 */
import type * as Y from "yjs";

export const EDITOR_ROLES = ["viewer", "editor", "owner"] as const;
export type EditorRole = (typeof EDITOR_ROLES)[number];

/** The Y.Doc field that holds the rich text (Tiptap's Collaboration extension default). */
export const YDOC_FIELD = "default";

export interface UpdatedBy {
  updated_by_type: string;
  updated_by_id: string;
}

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
