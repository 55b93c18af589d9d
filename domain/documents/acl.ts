/**
 * Document access control (spec 4.6), stated once. `canSee` is the rule; `compileAcl` turns
 * the caller's verified AccessContext into the values every index adapter binds into its
 * engine pre-filter (SQL in SQLite, a bool filter in OpenSearch). The property tests compare
 * both adapters' results against `canSee` over whole corpora, so the compiled forms cannot
 * drift from the rule.
 *
 * Fail closed: a visibility value this code does not know grants nothing.
 */
import type { AccessContext, DocumentAcl } from "./types.ts";

/** True when the caller may see a document with these rules (same tenant assumed). */
export function canSee(acl: DocumentAcl, access: AccessContext): boolean {
  if (acl.barrier_id !== null && !access.barriers.includes(acl.barrier_id)) return false;
  switch (acl.visibility) {
    case "tenant_wide":
      return true;
    case "deal_private":
      return acl.allowed_identity_ids.includes(access.identityId);
    case "team_only":
      return acl.allowed_roles.some((r) => access.roles.includes(r));
    default:
      return false;
  }
}

/**
 * The caller's side of the pre-filter, normalised: deduplicated, empty strings dropped.
 * A document passes when
 *   (visibility = tenant_wide
 *    OR visibility = deal_private AND identityId ∈ allowed_identity_ids
 *    OR visibility = team_only AND roles ∩ allowed_roles ≠ ∅)
 *   AND (barrier_id IS NULL OR barrier_id ∈ barriers)
 */
export interface CompiledAcl {
  identityId: string;
  roles: string[];
  barriers: string[];
}

export function compileAcl(access: AccessContext): CompiledAcl {
  const clean = (xs: readonly string[]) => [...new Set(xs.filter((x) => typeof x === "string" && x.length > 0))];
  return { identityId: access.identityId, roles: clean(access.roles), barriers: clean(access.barriers) };
}
