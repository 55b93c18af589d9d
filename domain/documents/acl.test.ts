import { expect, test } from "bun:test";
import { canSee, compileAcl } from "./acl.ts";
import type { AccessContext, DocumentAcl } from "./types.ts";

const who = (over: Partial<AccessContext> = {}): AccessContext => ({
  tenantId: "t",
  identityId: "7",
  roles: ["analyst"],
  barriers: [],
  ...over,
});
const acl = (over: Partial<DocumentAcl>): DocumentAcl => ({
  visibility: "tenant_wide",
  allowed_identity_ids: [],
  allowed_roles: [],
  barrier_id: null,
  ...over,
});

test("spec 4.6 table: tenant_wide, deal_private, team_only, plus barriers", () => {
  expect(canSee(acl({}), who())).toBe(true);
  expect(canSee(acl({ visibility: "deal_private", allowed_identity_ids: ["7"] }), who())).toBe(true);
  expect(canSee(acl({ visibility: "deal_private", allowed_identity_ids: ["8"] }), who())).toBe(false);
  // Being in allowed_roles does not open a deal_private document, nor the reverse.
  expect(canSee(acl({ visibility: "deal_private", allowed_roles: ["analyst"] }), who())).toBe(false);
  expect(canSee(acl({ visibility: "team_only", allowed_identity_ids: ["7"] }), who())).toBe(false);
  expect(canSee(acl({ visibility: "team_only", allowed_roles: ["partner", "analyst"] }), who())).toBe(true);
  expect(canSee(acl({ visibility: "team_only", allowed_roles: ["partner"] }), who())).toBe(false);
  expect(canSee(acl({ visibility: "team_only", allowed_roles: [] }), who())).toBe(false);
  // A barrier is required on top of the visibility rule.
  expect(canSee(acl({ barrier_id: "b1" }), who())).toBe(false);
  expect(canSee(acl({ barrier_id: "b1" }), who({ barriers: ["b1"] }))).toBe(true);
  expect(
    canSee(
      acl({ visibility: "deal_private", allowed_identity_ids: ["8"], barrier_id: "b1" }),
      who({ barriers: ["b1"] }),
    ),
  ).toBe(false);
});

test("fails closed on an unknown visibility; compileAcl drops blanks and duplicates", () => {
  expect(canSee(acl({ visibility: "public" as DocumentAcl["visibility"] }), who())).toBe(false);
  expect(compileAcl(who({ roles: ["a", "", "a", "b"], barriers: ["x", "x"] }))).toEqual({
    identityId: "7",
    roles: ["a", "b"],
    barriers: ["x"],
  });
});
