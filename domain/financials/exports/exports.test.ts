import { describe, expect, test } from "bun:test";
import { company, FakeFinancials, income, ratios } from "../../../test/fake-financials.ts";
import {
  buildCompsWorkbook,
  buildFinancialsWorkbook,
  compsFileName,
  FINANCIALS_SHEETS,
  financialsFileName,
  loadComps,
  loadFinancialsExport,
} from "./index.ts";
import type { Cell, SheetSpec } from "./workbook.ts";

const AAPL = "0000320193";
const MSFT = "0000789019";
const NVDA = "0001045810";

const reader = new FakeFinancials(
  [company(AAPL, "Apple Inc.", "AAPL"), company(MSFT, "Microsoft Corp", "MSFT"), company(NVDA, "NVIDIA Corp", "NVDA")],
  [
    income(AAPL, 2022, "FY", "2022-09-24", "0000320193-22-000108", { revenue: 394_328_000_000, net_income: 99_803e6 }),
    income(AAPL, 2023, "FY", "2023-09-30", "0000320193-23-000106", {
      revenue: 383_285_000_000,
      net_income: 96_995e6,
      earnings_per_share_diluted: 6.13,
    }),
    income(AAPL, 2024, "Q1", "2023-12-30", "0000320193-24-000006", { revenue: 119_575e6 }),
    income(AAPL, 2024, "Q2", "2024-03-30", "0000320193-24-000069", { revenue: 90_753e6 }),
    income(AAPL, 2024, "Q3", "2024-06-29", "0000320193-24-000081", { revenue: 85_777e6 }),
    income(AAPL, 2023, "Q3", "2023-07-01", "0000320193-23-000077", { revenue: 81_797e6 }),
    income(MSFT, 2023, "FY", "2023-06-30", "0000950170-23-035122", { revenue: 211_915e6, net_income: 72_361e6 }),
  ],
  [
    ratios(AAPL, 2022, "FY", "2022-09-24", "0000320193-22-000108", { gross_margin: 0.433, current_ratio: 0.879 }),
    ratios(AAPL, 2023, "FY", "2023-09-30", "0000320193-23-000106", { gross_margin: 0.441, current_ratio: 0.988 }),
    ratios(MSFT, 2023, "FY", "2023-06-30", "0000950170-23-035122", { gross_margin: 0.689, current_ratio: 1.769 }),
    // Ratios a year ahead of the income statement: the comps row must not mix the two years.
    ratios(MSFT, 2024, "FY", "2024-06-30", "0000950170-24-087843", { gross_margin: 0.698 }),
  ],
);

const sheet = (sheets: SheetSpec[], name: string) => {
  const s = sheets.find((x) => x.name === name);
  if (!s) throw new Error(`no sheet ${name}`);
  return s;
};
const rowOf = (s: SheetSpec, label: string): Cell[] => {
  const r = s.rows.find((cells) => cells[0]?.value === label);
  if (!r) throw new Error(`no row ${label} in ${s.name}`);
  return r;
};

describe("loadFinancialsExport", () => {
  test("unknown CIK gives null", async () => {
    expect(await loadFinancialsExport(reader, "0000000001", { limit: 8 })).toBeNull();
  });

  test("quarterly merges the four quarter queries newest first and keeps `limit`", async () => {
    const d = await loadFinancialsExport(reader, AAPL, { limit: 3 });
    expect(d?.income.quarterly.map((r) => r.report_period)).toEqual(["2024-06-29", "2024-03-30", "2023-12-30"]);
    expect(d?.income.annual.map((r) => r.fiscal_year)).toEqual([2023, 2022]);
  });

  test("period FY leaves the quarterly sheets empty; Q3 leaves the annual ones empty", async () => {
    const fy = await loadFinancialsExport(reader, AAPL, { limit: 8, period: "FY" });
    expect(fy?.income.quarterly).toEqual([]);
    expect(fy?.income.annual).toHaveLength(2);
    const q3 = await loadFinancialsExport(reader, AAPL, { limit: 8, period: "Q3", fiscal_year: 2024 });
    expect(q3?.income.annual).toEqual([]);
    expect(q3?.ratios.annual).toEqual([]);
    expect(q3?.income.quarterly.map((r) => r.accession_number)).toEqual(["0000320193-24-000081"]);
  });
});

describe("buildFinancialsWorkbook", () => {
  test("sheets, periods as columns oldest first, formats, nulls and provenance", async () => {
    const d = await loadFinancialsExport(reader, AAPL, { limit: 8 }, new Date("2024-07-01T12:00:00Z"));
    if (!d) throw new Error("no data");
    const wb = buildFinancialsWorkbook(d);
    expect(wb.sheets.map((s) => s.name)).toEqual(Object.values(FINANCIALS_SHEETS));

    const annual = sheet(wb.sheets, "Income (annual)");
    expect(annual.columns.map((c) => c.header)).toEqual(["Line item", "FY2022", "FY2023"]);
    expect(annual.freeze).toEqual({ rows: 1, columns: 1 });
    expect(rowOf(annual, "Revenue").slice(1)).toEqual([
      { value: 394_328_000_000, format: "money" },
      { value: 383_285_000_000, format: "money" },
    ]);
    expect(rowOf(annual, "EPS (diluted)")[2]).toEqual({ value: 6.13, format: "per_share" });
    // Not reported stays null (an empty cell), never 0.
    expect(
      rowOf(annual, "Research and development")
        .slice(1)
        .map((c) => c.value),
    ).toEqual([null, null]);
    expect(
      rowOf(annual, "Period end")
        .slice(1)
        .map((c) => [c.value, c.format]),
    ).toEqual([
      ["2022-09-24", "date"],
      ["2023-09-30", "date"],
    ]);
    const source = rowOf(annual, "Source filing (accession no.)");
    expect(source[2]).toMatchObject({
      value: "0000320193-23-000106",
      link: "https://www.sec.gov/Archives/edgar/data/320193/000032019323000106/",
    });

    const quarterly = sheet(wb.sheets, "Income (quarterly)");
    expect(quarterly.columns.map((c) => c.header)).toEqual([
      "Line item",
      "Q3 FY2023",
      "Q1 FY2024",
      "Q2 FY2024",
      "Q3 FY2024",
    ]);

    const ratiosA = sheet(wb.sheets, "Ratios (annual)");
    expect(rowOf(ratiosA, "Gross margin")[2]).toEqual({ value: 0.441, format: "percent" });
    expect(rowOf(ratiosA, "Current ratio")[2]).toEqual({ value: 0.988, format: "ratio" });
    expect(rowOf(ratiosA, "Enterprise value")[1]).toEqual({ value: null, format: "money" });

    const empty = sheet(wb.sheets, "Ratios (quarterly)");
    expect(empty.rows).toEqual([]);
    expect(empty.notes[0]).toContain("No periods match");

    const co = sheet(wb.sheets, "Company");
    expect(rowOf(co, "Name")[1]?.value).toBe("Apple Inc.");
    expect(rowOf(co, "Generated at (UTC)")[1]?.value).toBe("2024-07-01T12:00:00.000Z");
    // Every filing that feeds a column is listed once, with the columns it feeds.
    const filing = rowOf(co, "0000320193-23-000106");
    expect(filing[1]?.value).toBe("Income (annual) FY2023; Ratios (annual) FY2023");
    expect(co.rows.filter((r) => /^\d{10}-\d{2}-\d{6}$/.test(String(r[0]?.value))).length).toBe(6);

    expect(financialsFileName(d.company, d.generatedAt, "xlsx")).toBe("cairn-financials-AAPL-20240701.xlsx");
  });
});

describe("comps", () => {
  test("unknown CIKs are all reported and nothing is loaded", async () => {
    const r = await loadComps(reader, [AAPL, "0000000001", "0000000002"], "FY", undefined);
    expect(r.unknown).toEqual(["0000000001", "0000000002"]);
    expect(r.companies).toEqual([]);
  });

  test("one period per company: a lagging statement is re-read for the anchor's period", async () => {
    const { companies } = await loadComps(reader, [AAPL, MSFT, NVDA], "FY", undefined);
    const [aapl, msft, nvda] = companies;
    expect([aapl?.income?.fiscal_year, aapl?.ratios?.fiscal_year]).toEqual([2023, 2023]);
    // MSFT ratios are FY2024, its income stops at FY2023: the row is FY2024 with no income.
    expect(msft?.ratios?.fiscal_year).toBe(2024);
    expect(msft?.income).toBeNull();
    expect(nvda?.income ?? nvda?.ratios ?? null).toBeNull();

    const fixed = await loadComps(reader, [AAPL, MSFT], "FY", 2023);
    expect(fixed.companies.map((c) => [c.income?.fiscal_year, c.ratios?.fiscal_year])).toEqual([
      [2023, 2023],
      [2023, 2023],
    ]);
    const latest = await loadComps(reader, [AAPL, MSFT], "latest", undefined);
    expect(latest.companies[0]?.income?.report_period).toBe("2024-06-29");
    expect(latest.companies[0]?.ratios).toBeNull();
  });

  test("grid: rows in request order, metric columns, median and mean over present values", async () => {
    const { companies } = await loadComps(reader, [AAPL, MSFT, NVDA], "FY", 2023);
    const wb = buildCompsWorkbook({
      companies,
      metrics: ["revenue", "gross_margin", "current_ratio", "earnings_per_share_diluted"],
      period: "FY",
      fiscalYear: 2023,
      generatedAt: new Date("2024-07-01T00:00:00Z"),
    });
    const s = wb.sheets[0]!;
    expect(s.columns.map((c) => c.header)).toEqual([
      "Company",
      "Ticker",
      "CIK",
      "Period",
      "Period end",
      "Revenue",
      "Gross margin",
      "Current ratio",
      "EPS (diluted)",
      "Source filings",
    ]);
    expect(s.rows.map((r) => r[0]?.value)).toEqual(["Apple Inc.", "Microsoft Corp", "NVIDIA Corp", "Median", "Mean"]);
    expect(s.rows[0]?.slice(3, 9).map((c) => c.value)).toEqual(["FY2023", "2023-09-30", 383_285e6, 0.441, 0.988, 6.13]);
    expect(s.rows[2]?.slice(5, 9).map((c) => c.value)).toEqual([null, null, null, null]);
    const median = s.rows[3]!;
    const mean = s.rows[4]!;
    expect(median[5]?.value).toBe((383_285e6 + 211_915e6) / 2);
    expect(mean[6]).toMatchObject({ format: "percent", bold: true });
    expect(mean[6]?.value).toBeCloseTo((0.441 + 0.689) / 2, 10);
    expect(median[8]?.value).toBe(6.13);
    expect(s.notes.join(" ")).toContain("No data for the selected period: NVDA");
    expect(s.rows[1]?.at(-1)?.value).toBe("0000950170-23-035122");
    expect(compsFileName("FY", 2023, new Date("2024-07-01T00:00:00Z"), "xlsx")).toBe(
      "cairn-comps-FY2023-20240701.xlsx",
    );
  });
});
