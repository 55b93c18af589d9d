/**
 * Shared by the leg tests (permitted.test.ts, keyword-leg.test.ts): a caller's leg scope with
 * no roles, no barriers, no filter and limit 50, overridden per test.
 */
import type { LegScope } from "./permitted.ts";

export const scope = (over: Partial<LegScope> = {}): LegScope => ({
  identity: "u2",
  roles: "[]",
  barriers: "[]",
  doc_id: null,
  entity_id: null,
  doc_type: null,
  limit: 50,
  ...over,
});
