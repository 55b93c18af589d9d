/**
 * Who may do what on an editor document (spec 2.12, 4.7; rules in docs/editor.md):
 *
 * 1. Another tenant's document does not exist for the caller (null here, 404 at the edge).
 * 2. The base role is `owner` for the document's owner, otherwise the better of the member
 *    grant and the document's general access for the tenant (none, viewer, editor).
 * 3. The tenant role caps it: a user holding neither the tenant's `editor` nor `owner` role
 *    (spec provisioning: "viewer reads documents") is at most a viewer on every document.
 */
import type { DocumentAcl } from "../documents/types.ts";
import type { EditorDocumentMeta, EditorMember, EditorRole, MemberRole } from "./types.ts";

const RANK: Record<EditorRole, number> = { viewer: 1, editor: 2, owner: 3 };

/** Tenant roles that may write documents (and create them). */
export const WRITER_TENANT_ROLES = ["editor", "owner"] as const;

export interface Caller {
  userId: number;
  tenantId: string;
  /** The user's tenant roles. */
  roles: readonly string[];
}

export function canWriteInTenant(caller: Caller): boolean {
  return caller.roles.some((r) => (WRITER_TENANT_ROLES as readonly string[]).includes(r));
}

export function atLeast(role: EditorRole | null, need: EditorRole): boolean {
  return role !== null && RANK[role] >= RANK[need];
}

/** The caller's effective role, or null when the caller has none (or the document is another tenant's). */
export function effectiveRole(
  doc: Pick<EditorDocumentMeta, "tenant_id" | "owner_id" | "general_access">,
  memberRole: MemberRole | null,
  caller: Caller,
): EditorRole | null {
  if (doc.tenant_id !== caller.tenantId) return null;
  let base: EditorRole | null = null;
  if (doc.owner_id === caller.userId) base = "owner";
  else {
    const open = doc.general_access === "none" ? null : doc.general_access;
    base = memberRole && open ? (RANK[memberRole] >= RANK[open] ? memberRole : open) : (memberRole ?? open);
  }
  if (base === null) return null;
  return canWriteInTenant(caller) ? base : "viewer";
}

/**
 * The access rules the search index carries for the document: open documents are
 * tenant-wide; others are visible to their owner and members only.
 */
export function indexAcl(
  doc: Pick<EditorDocumentMeta, "owner_id" | "general_access">,
  members: EditorMember[],
): DocumentAcl {
  if (doc.general_access !== "none") {
    return { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null };
  }
  const ids = new Set([String(doc.owner_id), ...members.map((m) => String(m.user_id))]);
  return { visibility: "deal_private", allowed_identity_ids: [...ids], allowed_roles: [], barrier_id: null };
}
