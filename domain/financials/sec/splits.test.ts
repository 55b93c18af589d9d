import { describe, expect, test } from "bun:test";
import type { StoredFact } from "../fields.ts";
import { detectSplits, filingSplitFactor, splitFactor } from "./splits.ts";

const shares = (start: string, end: string, val: number, accn: string, filed: string): StoredFact => ({
  taxonomy: "us-gaap",
  concept: "WeightedAverageNumberOfSharesOutstandingBasic",
  unit: "shares",
  start,
  end,
  val,
  accn,
  fy: null,
  fp: null,
  form: "10-Q",
  filed,
  frame: null,
});
const cover = (end: string, val: number, accn: string, filed: string): StoredFact => ({
  ...shares(end, end, val, accn, filed),
  taxonomy: "dei",
  concept: "EntityCommonStockSharesOutstanding",
  start: null,
});

describe("split detection", () => {
  const facts = [
    shares("2021-07-01", "2021-09-30", 1000, "Q3-21", "2021-10-25"),
    shares("2021-01-01", "2021-12-31", 1001, "K-21", "2022-02-07"),
    cover("2022-01-31", 1002, "K-21", "2022-02-07"),
    shares("2022-01-01", "2022-03-31", 1003, "Q1-22", "2022-04-25"),
    cover("2022-04-20", 1003, "Q1-22", "2022-04-25"),
    shares("2022-04-01", "2022-06-30", 1005, "Q2-22", "2022-07-25"),
    cover("2022-07-20", 1005, "Q2-22", "2022-07-25"),
    // 3-for-1 split in August 2022; the Q3 10-Q restates the prior-year quarter and 9 months.
    shares("2021-07-01", "2021-09-30", 3000, "Q3-22", "2022-10-24"),
    shares("2021-01-01", "2021-09-30", 2997, "Q3-22", "2022-10-24"),
    shares("2021-01-01", "2021-09-30", 999, "Q3-21", "2021-10-25"),
    cover("2022-10-20", 3020, "Q3-22", "2022-10-24"),
  ];

  test("restated share counts in an integer ratio bracket the split between two filings", () => {
    const s = detectSplits(facts);
    expect(s).toHaveLength(1);
    expect(s[0]?.ratio).toBe(3);
    expect(s[0]?.evidence).toBe(2);
    // Filings between the restatement pair that restated nothing are placed by their share level.
    expect(s[0]?.oldBasisUntil).toBe("2022-07-25");
    expect(s[0]?.newBasisFrom).toBe("2022-10-24");
  });

  test("factors restate old-basis values; a date inside the bracket is ambiguous for prices", () => {
    const s = detectSplits(facts);
    expect(filingSplitFactor(s, "2022-04-25")).toBe(3);
    expect(filingSplitFactor(s, "2022-10-24")).toBe(1);
    expect(splitFactor(s, "2014-12-31")).toBe(3);
    expect(splitFactor(s, "2022-08-30")).toBeNull();
    expect(splitFactor(s, "2023-01-01")).toBe(1);
  });

  test("ordinary restatements and single coincidences are not splits", () => {
    expect(
      detectSplits([
        shares("2021-01-01", "2021-12-31", 1000, "A", "2022-02-01"),
        shares("2021-01-01", "2021-12-31", 1040, "B", "2023-02-01"),
      ]),
    ).toEqual([]);
    expect(
      detectSplits([
        shares("2021-01-01", "2021-12-31", 1000, "A", "2022-02-01"),
        shares("2021-01-01", "2021-12-31", 2000, "B", "2023-02-01"),
      ]),
    ).toEqual([]);
  });
});
