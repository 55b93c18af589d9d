import { describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import {
  buildCompsWorkbook,
  buildFinancialsWorkbook,
  loadComps,
  loadFinancialsExport,
} from "../../domain/financials/exports/index.ts";
import { company, FakeFinancials, income, ratios } from "../../test/fake-financials.ts";
import { sofficePath, xlsxAsShown } from "../../test/libreoffice.ts";
import { ExcelJsRenderer } from "./index.ts";

const CIK = "0000320193";
const OTHER = "0000789019";
const reader = new FakeFinancials(
  [company(CIK, "Apple Inc.", "AAPL"), company(OTHER, "Microsoft Corp", "MSFT")],
  [
    income(CIK, 2022, "FY", "2022-09-24", "0000320193-22-000108", { revenue: 394_328e6, earnings_per_share: 6.15 }),
    income(CIK, 2023, "FY", "2023-09-30", "0000320193-23-000106", { revenue: 383_285e6, earnings_per_share: 6.16 }),
    income(OTHER, 2023, "FY", "2023-06-30", "0000950170-23-035122", { revenue: 211_915e6 }),
  ],
  [
    ratios(CIK, 2023, "FY", "2023-09-30", "0000320193-23-000106", { gross_margin: 0.44131, current_ratio: 0.98799 }),
    ratios(OTHER, 2023, "FY", "2023-06-30", "0000950170-23-035122", { gross_margin: 0.689 }),
  ],
);
const renderer = new ExcelJsRenderer();

async function financialsBytes(): Promise<Uint8Array<ArrayBuffer>> {
  const data = await loadFinancialsExport(reader, CIK, { limit: 8 });
  if (!data) throw new Error("no data");
  return renderer.render(buildFinancialsWorkbook(data));
}

async function read(bytes: Uint8Array<ArrayBuffer>): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes.buffer);
  return wb;
}

describe("ExcelJsRenderer", () => {
  test("writes a real xlsx: sheets, frozen header, widths, number formats, empty nulls, links", async () => {
    const bytes = await financialsBytes();
    // An Office Open XML file is a zip archive.
    expect([...bytes.slice(0, 2)]).toEqual([0x50, 0x4b]);
    const wb = await read(bytes);
    expect(wb.worksheets.map((w) => w.name)).toEqual([
      "Company",
      "Income (annual)",
      "Income (quarterly)",
      "Ratios (annual)",
      "Ratios (quarterly)",
    ]);
    const ws = wb.getWorksheet("Income (annual)")!;
    expect(ws.views[0]).toMatchObject({ state: "frozen", xSplit: 1, ySplit: 1 });
    expect(ws.getColumn(1).width).toBe(38);
    expect(ws.getColumn(2).width).toBe(18);
    expect(ws.getRow(1).getCell(2).value).toBe("FY2022");
    expect(ws.getRow(1).font?.bold).toBe(true);
    const revenue = ws.getRow(3);
    expect(revenue.getCell(1).value).toBe("Revenue");
    expect(revenue.getCell(3).value).toBe(383_285e6);
    expect(revenue.getCell(3).numFmt).toBe("#,##0");
    const eps = ws.getRow(12);
    expect(eps.getCell(1).value).toBe("EPS (basic)");
    expect(eps.getCell(2).numFmt).toBe("#,##0.00");
    // Not reported: a truly empty cell, not a zero.
    const cost = ws.getRow(4);
    expect(cost.getCell(1).value).toBe("Cost of revenue");
    expect(cost.getCell(2).type).toBe(ExcelJS.ValueType.Null);
    const periodEnd = ws.getRow(2).getCell(3);
    expect(periodEnd.value).toEqual(new Date("2023-09-30T00:00:00Z"));
    expect(periodEnd.numFmt).toBe("yyyy-mm-dd");
    const source = ws.getRow(16).getCell(3).value as ExcelJS.CellHyperlinkValue;
    expect(source.text).toBe("0000320193-23-000106");
    expect(source.hyperlink).toBe("https://www.sec.gov/Archives/edgar/data/320193/000032019323000106/");

    const r = wb.getWorksheet("Ratios (annual)")!;
    const margin = r.getRow(3).getCell(2);
    expect(r.getRow(3).getCell(1).value).toBe("Gross margin");
    expect(margin.value).toBe(0.44131);
    expect(margin.numFmt).toBe("0.0%");
    expect(r.getRow(15).getCell(1).value).toBe("Current ratio");
    expect(r.getRow(15).getCell(2).numFmt).toBe("#,##0.00");
  });

  test("as LibreOffice shows it: thousands separators, percentages, two decimals, empty cells", async () => {
    const soffice = sofficePath();
    if (!soffice) return;
    const sheets = await xlsxAsShown(soffice, await financialsBytes());
    expect([...sheets.keys()].sort()).toEqual(
      ["Company", "Income (annual)", "Income (quarterly)", "Ratios (annual)", "Ratios (quarterly)"].sort(),
    );
    const income = sheets.get("Income (annual)")!;
    expect(income[0]).toEqual(["Line item", "FY2022", "FY2023"]);
    expect(income.find((r) => r[0] === "Revenue")).toEqual(["Revenue", "394,328,000,000", "383,285,000,000"]);
    expect(income.find((r) => r[0] === "EPS (basic)")).toEqual(["EPS (basic)", "6.15", "6.16"]);
    expect(income.find((r) => r[0] === "Cost of revenue")).toEqual(["Cost of revenue", "", ""]);
    expect(income.find((r) => r[0] === "Period end")).toEqual(["Period end", "2022-09-24", "2023-09-30"]);
    const ratiosSheet = sheets.get("Ratios (annual)")!;
    expect(ratiosSheet.find((r) => r[0] === "Gross margin")?.[1]).toBe("44.1%");
    expect(ratiosSheet.find((r) => r[0] === "Current ratio")?.[1]).toBe("0.99");
  }, 120_000);

  test("comps grid renders with median/mean rows and the header frozen", async () => {
    const { companies } = await loadComps(reader, [CIK, OTHER], "FY", 2023);
    const bytes = await renderer.render(
      buildCompsWorkbook({
        companies,
        metrics: ["revenue", "gross_margin"],
        period: "FY",
        fiscalYear: 2023,
        generatedAt: new Date(),
      }),
    );
    const ws = (await read(bytes)).getWorksheet("Comps")!;
    expect(ws.views[0]).toMatchObject({ state: "frozen", xSplit: 1, ySplit: 1 });
    expect(ws.getRow(4).getCell(1).value).toBe("Median");
    expect(ws.getRow(4).getCell(6).value).toBe((383_285e6 + 211_915e6) / 2);
    expect(ws.getRow(5).getCell(7).numFmt).toBe("0.0%");
    expect(ws.getRow(5).getCell(1).font?.bold).toBe(true);
  });
});
