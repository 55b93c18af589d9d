import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { FINANCIALS_MIGRATIONS } from "./migrations.ts";

// The migration builds its income and ratio columns from the domain's field lists
// (domain/financials/fields.ts). A shipped migration must never change, so this pins the
// SHA-256 and length of the SQL it generates, taken from the text as first shipped (when
// the columns were spelled out in migrations.ts). If this fails, the field lists changed:
// add a new migration for the change instead of altering this one.
const FROZEN: Record<string, { sqlite: [string, number]; postgres: [string, number] }> = {
  "fin:001_companies_filings_facts_statements": {
    sqlite: ["bb9fd786c056deb3727575d5a1b6da0999704e0d37cc3d6aa0bbcb950c1afd2e", 4333],
    postgres: ["6f2c3c36aad2b55abff006d6f3e10b2846e79ff6a5b08619d0384262ab7d4567", 4981],
  },
};

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

test("the shipped financials migrations generate byte-identical SQL", () => {
  expect(FINANCIALS_MIGRATIONS.map((m) => m.id)).toEqual(Object.keys(FROZEN));
  for (const m of FINANCIALS_MIGRATIONS) {
    expect([sha256(m.sqlite), m.sqlite.length]).toEqual(FROZEN[m.id]?.sqlite ?? ["", 0]);
    expect([sha256(m.postgres), m.postgres.length]).toEqual(FROZEN[m.id]?.postgres ?? ["", 0]);
  }
});
