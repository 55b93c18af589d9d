/** The refresh writes rows in the Foundry sync's column order: the catalogue must list the same columns. */
import { describe, expect, test } from "bun:test";
import { readModelTable } from "../../../domain/foundry/readmodels/catalogue.ts";
import { COLUMNS, type FoundryTable } from "../sync/tables.ts";

describe("read-model catalogue and the Foundry sync's tables", () => {
  const pairs: [string, string, FoundryTable][] = [
    ["ci", "companies", "companies"],
    ["ci", "income_statements", "income_statements"],
    ["ci", "ratios", "financial_ratios"],
    ["ci", "segments", "revenue_segments"],
    ["md", "daily_bars", "market_daily"],
  ];
  test.each(pairs)("%s.%s has the columns of %s, in order", (schema, table, sync) => {
    const t = readModelTable(schema, table);
    const own = (t?.columns ?? []).map((c) => c.name).filter((c) => c !== "tenant_id");
    expect(own).toEqual(COLUMNS[sync].map((c) => c.name));
    // A column the sync requires is required here too.
    for (const c of COLUMNS[sync]) {
      if (!c.nullable) expect(t?.columns.find((x) => x.name === c.name)?.nullable).toBe(false);
    }
  });
});
