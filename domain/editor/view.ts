/** What callers see of an editor document, and the list cursor. */
import { AppError } from "../errors.ts";
import type { EditorDocumentMeta, EditorMember, EditorRole, GeneralAccess } from "./types.ts";

export interface DocumentView {
  doc_id: string;
  /** The collaboration room name (the document UUID). */
  room_name: string;
  title: string;
  my_role: EditorRole;
  owner_id: number;
  general_access: GeneralAccess;
  version: number;
  created_at: string;
  created_by: number;
  updated_at: string;
  updated_by_type: string;
  updated_by_id: string;
}

export interface MemberView extends EditorMember {
  email: string;
  name: string;
}

export function toView(meta: EditorDocumentMeta, role: EditorRole): DocumentView {
  return {
    doc_id: meta.doc_id,
    room_name: meta.doc_id,
    title: meta.title,
    my_role: role,
    owner_id: meta.owner_id,
    general_access: meta.general_access,
    version: meta.version,
    created_at: meta.created_at,
    created_by: meta.created_by,
    updated_at: meta.updated_at,
    updated_by_type: meta.updated_by_type,
    updated_by_id: meta.updated_by_id,
  };
}

export function encodeCursor(r: { updated_at: string; doc_id: string }): string {
  return Buffer.from(JSON.stringify([r.updated_at, r.doc_id])).toString("base64url");
}

export function decodeCursor(cursor: string): { updated_at: string; doc_id: string } {
  try {
    const [updated_at, doc_id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof updated_at === "string" && typeof doc_id === "string") return { updated_at, doc_id };
  } catch {
    // fall through
  }
  throw AppError.validation([
    { loc: ["query", "cursor"], msg: "Invalid cursor", type: "value_error", input: cursor, ctx: {} },
  ]);
}
