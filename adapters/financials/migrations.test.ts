import { expect, test } from "bun:test";
import { INCOME_FIELDS, RATIO_FIELDS } from "../../domain/financials/fields.ts";
import { INCOME_COLUMNS, RATIO_COLUMNS } from "./migrations.ts";

// The migration spells its columns out so an applied migration never changes; this keeps
// that frozen copy and the domain's field lists from drifting apart.
test("the stored columns are exactly the spec's income and ratio fields", () => {
  expect([...INCOME_COLUMNS]).toEqual([...INCOME_FIELDS]);
  expect([...RATIO_COLUMNS]).toEqual([...RATIO_FIELDS]);
});
