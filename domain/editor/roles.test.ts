import { describe, expect, test } from "bun:test";
import { effectiveRole, indexAcl } from "./roles.ts";
import type { GeneralAccess, MemberRole } from "./types.ts";

const T = "tenant-a";
const doc = (general_access: GeneralAccess = "none") => ({ tenant_id: T, owner_id: 1, general_access });
const caller = (userId: number, roles: string[] = ["editor"], tenantId = T) => ({ userId, tenantId, roles });

describe("effectiveRole", () => {
  test.each<[string, GeneralAccess, MemberRole | null, ReturnType<typeof caller>, string | null]>([
    ["owner", "none", null, caller(1), "owner"],
    ["member viewer", "none", "viewer", caller(2), "viewer"],
    ["member editor", "none", "editor", caller(2), "editor"],
    ["no membership, private", "none", null, caller(2), null],
    ["no membership, open to view", "viewer", null, caller(2), "viewer"],
    ["no membership, open to edit", "editor", null, caller(2), "editor"],
    ["viewer member of a tenant-editable doc gets the better role", "editor", "viewer", caller(2), "editor"],
    ["tenant viewer role caps a member editor", "none", "editor", caller(2, ["viewer"]), "viewer"],
    ["tenant viewer role caps the owner", "none", null, caller(1, ["viewer"]), "viewer"],
    ["tenant owner role is no implicit access", "none", null, caller(2, ["owner"]), null],
    ["another tenant never has a role", "editor", "editor", caller(1, ["owner"], "tenant-b"), null],
  ])("%s", (_n, access, member, who, expected) => {
    expect(effectiveRole(doc(access), member, who)).toBe(expected as never);
  });
});

describe("indexAcl", () => {
  const m = (user_id: number) => ({ user_id, role: "viewer" as const, granted_at: "", granted_by: 1 });
  test("open documents are tenant-wide; private ones list the owner and members", () => {
    expect(indexAcl(doc("viewer"), [m(2)])).toEqual({
      visibility: "tenant_wide",
      allowed_identity_ids: [],
      allowed_roles: [],
      barrier_id: null,
    });
    expect(indexAcl(doc("none"), [m(2), m(3)])).toEqual({
      visibility: "deal_private",
      allowed_identity_ids: ["1", "2", "3"],
      allowed_roles: [],
      barrier_id: null,
    });
  });
});
