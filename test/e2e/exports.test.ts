/**
 * Exports end to end: real SEC data ingested into the real store, downloaded through the
 * routes, opened by ExcelJS and by LibreOffice (what a user sees), and e-mailed through a
 * real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import { startTestService, type TestService } from "../harness.ts";
import { sofficePath, xlsxAsShown } from "../libreoffice.ts";
import { sharedData } from "../shared-data.ts";
import { startTestSmtp, type TestSmtp } from "../smtp.ts";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const APPLE_FY2023_REVENUE = 383_285_000_000;
const secDir = sharedData("sec", "exports e2e");

let smtp: TestSmtp;
let svc: TestService;
let key: string;
beforeAll(async () => {
  if (!secDir) return;
  smtp = await startTestSmtp();
  svc = await startTestService({ CAIRN_SMTP_URL: smtp.url });
  const report = await ingestSecDirectory(secDir, svc.service.financials);
  expect(report.errors).toEqual([]);
  key = await svc.apiKey("exporter@example.com", "enterprise");
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await smtp?.close();
});

const get = (path: string, apiKey: string | null = key) =>
  svc.request(path, { headers: apiKey ? { "x-api-key": apiKey } : {} });
const post = (path: string, body: unknown) =>
  svc.request(path, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function workbook(bytes: ArrayBuffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes);
  return wb;
}

/** The value under header `column` on the row labelled `row` (first column). */
function cell(rows: string[][], row: string, column: string): string | undefined {
  const col = rows[0]?.indexOf(column) ?? -1;
  return rows.find((r) => r[0] === row)?.[col];
}

async function detailLocs(res: Response): Promise<string[][]> {
  return ((await res.json()) as { detail: { loc: string[] }[] }).detail.map((d) => d.loc);
}

describe.skipIf(!secDir)("GET /v1/export/financials/{cik}", () => {
  test("Apple: a real workbook with the five sheets, formatted as a user sees it", async () => {
    const res = await get("/v1/export/financials/320193");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(XLSX);
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="cairn-financials-AAPL-\d{8}\.xlsx"$/,
    );
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const bytes = await res.arrayBuffer();

    const wb = await workbook(bytes);
    expect(wb.worksheets.map((w) => w.name)).toEqual([
      "Company",
      "Income (annual)",
      "Income (quarterly)",
      "Ratios (annual)",
      "Ratios (quarterly)",
    ]);
    const income = wb.getWorksheet("Income (annual)")!;
    expect(income.views[0]).toMatchObject({ state: "frozen", xSplit: 1, ySplit: 1 });
    const headers = (income.getRow(1).values as unknown[]).slice(1);
    expect(headers).toHaveLength(1 + 8);
    const fy2023 = headers.indexOf("FY2023") + 1;
    expect(fy2023).toBeGreaterThan(1);
    const revenue = income.getRow(3);
    expect(revenue.getCell(1).value).toBe("Revenue");
    expect(revenue.getCell(fy2023).value).toBe(APPLE_FY2023_REVENUE);
    expect(revenue.getCell(fy2023).numFmt).toBe("#,##0");

    const soffice = sofficePath();
    if (!soffice) return;
    const shown = await xlsxAsShown(soffice, new Uint8Array(bytes));
    const inc = shown.get("Income (annual)")!;
    expect(cell(inc, "Revenue", "FY2023")).toBe("383,285,000,000");
    expect(cell(inc, "EPS (diluted)", "FY2023")).toBe("6.13");
    expect(cell(inc, "Period end", "FY2023")).toBe("2023-09-30");
    const ratios = shown.get("Ratios (annual)")!;
    expect(cell(ratios, "Gross margin", "FY2023")).toBe("44.1%");
    expect(cell(ratios, "Revenue growth", "FY2023")).toBe("-2.8%");
    expect(cell(ratios, "Current ratio", "FY2023")).toMatch(/^\d+\.\d{2}$/);
    // Provenance: the FY2023 column names its filing, and the Company sheet lists it.
    const accession = cell(inc, "Source filing (accession no.)", "FY2023")!;
    expect(accession).toMatch(/^0000320193-\d{2}-\d{6}$/);
    const company = shown.get("Company")!;
    expect(company.find((r) => r[0] === "Name")?.[1]).toBe("Apple Inc.");
    expect(company.find((r) => r[0] === accession)?.[1]).toContain("Income (annual) FY2023");
    const quarterly = shown.get("Income (quarterly)")!;
    expect(quarterly[0]?.slice(1).every((h) => /^Q[1-4] FY\d{4}$/.test(h))).toBe(true);
  }, 120_000);

  test("period, fiscal_year and limit select the columns; leading zeros are the same company", async () => {
    const res = await get("/v1/export/financials/0000320193?period=FY&limit=3");
    expect(res.status).toBe(200);
    const wb = await workbook(await res.arrayBuffer());
    const annual = (wb.getWorksheet("Income (annual)")!.getRow(1).values as unknown[]).slice(2);
    expect(annual).toHaveLength(3);
    expect(annual.every((h) => /^FY\d{4}$/.test(String(h)))).toBe(true);
    const quarterly = wb.getWorksheet("Income (quarterly)")!;
    expect(quarterly.getRow(1).cellCount).toBe(1);
    expect(String(quarterly.getRow(3).getCell(1).value)).toContain("No periods match");

    const q1 = await get("/v1/export/financials/320193?period=Q1&fiscal_year=2025");
    const qwb = await workbook(await q1.arrayBuffer());
    expect((qwb.getWorksheet("Income (quarterly)")!.getRow(1).values as unknown[]).slice(2)).toEqual(["Q1 FY2025"]);
    expect(qwb.getWorksheet("Income (annual)")!.getRow(1).cellCount).toBe(1);
  });

  test("bad CIK or query is 422, unknown CIK 404, no key 401", async () => {
    expect(await detailLocs(await get("/v1/export/financials/AAPL"))).toEqual([["path", "cik"]]);
    expect((await get("/v1/export/financials/12345678901")).status).toBe(422);
    expect(await detailLocs(await get("/v1/export/financials/320193?limit=41"))).toEqual([["query", "limit"]]);
    expect(await detailLocs(await get("/v1/export/financials/320193?limit=0"))).toEqual([["query", "limit"]]);
    expect(await detailLocs(await get("/v1/export/financials/320193?period=H1"))).toEqual([["query", "period"]]);
    expect(await detailLocs(await get("/v1/export/financials/320193?fiscal_year=abc"))).toEqual([
      ["query", "fiscal_year"],
    ]);
    const unknown = await get("/v1/export/financials/1");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "No company with CIK 0000000001" });
    expect((await get("/v1/export/financials/320193", null)).status).toBe(401);
  });
});

const PEERS = ["320193", "1045810", "1318605", "1652044"];

describe.skipIf(!secDir)("POST /v1/export/comps", () => {
  test("rows per company in order, metric columns, median and mean rows", async () => {
    const metrics = ["revenue", "gross_margin", "net_margin", "current_ratio", "earnings_per_share_diluted"];
    const res = await post("/v1/export/comps", { ciks: PEERS, metrics, period: "FY", fiscal_year: 2023 });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(XLSX);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="cairn-comps-FY2023-\d{8}\.xlsx"$/);
    const bytes = await res.arrayBuffer();
    const ws = (await workbook(bytes)).getWorksheet("Comps")!;
    expect(ws.views[0]).toMatchObject({ state: "frozen", xSplit: 1, ySplit: 1 });
    const col = (ws.getRow(1).values as unknown[]).indexOf("Revenue");
    const revenues = [2, 3, 4, 5].map((r) => ws.getRow(r).getCell(col).value);
    expect(revenues[0]).toBe(APPLE_FY2023_REVENUE);
    // The shared data stops at Tesla's FY2021: its row stays empty and out of the statistics.
    expect(revenues[2]).toBeNull();
    const present = revenues.filter((v): v is number => typeof v === "number").sort((a, b) => a - b);
    expect(present).toHaveLength(3);
    expect(ws.getRow(6).getCell(1).value).toBe("Median");
    expect(ws.getRow(6).getCell(col).value).toBe(present[1]!);
    expect(ws.getRow(7).getCell(1).value).toBe("Mean");
    expect(ws.getRow(7).getCell(col).value).toBeCloseTo(present.reduce((a, b) => a + b, 0) / 3, 0);

    const soffice = sofficePath();
    if (!soffice) return;
    const rows = (await xlsxAsShown(soffice, new Uint8Array(bytes))).get("Comps")!;
    expect(rows.slice(1, 5).map((r) => r[1])).toEqual(["AAPL", "NVDA", "TSLA", "GOOGL"]);
    expect(cell(rows, "Apple Inc.", "Revenue")).toBe("383,285,000,000");
    expect(cell(rows, "Apple Inc.", "Gross margin")).toBe("44.1%");
    expect(cell(rows, "Apple Inc.", "Period")).toBe("FY2023");
    expect(cell(rows, "Median", "Gross margin")).toMatch(/^\d+\.\d%$/);
    expect(cell(rows, "Mean", "Current ratio")).toMatch(/^\d+\.\d{2}$/);
    expect(cell(rows, "Tesla, Inc.", "Revenue")).toBe("");
    expect(rows.some((r) => r[0] === "No data for the selected period: TSLA.")).toBe(true);
  }, 120_000);

  test("defaults: period FY (newest), the default metric set; latest mixes period kinds", async () => {
    const res = await post("/v1/export/comps", { ciks: PEERS.slice(0, 2) });
    expect(res.status).toBe(200);
    const ws = (await workbook(await res.arrayBuffer())).getWorksheet("Comps")!;
    const headers = (ws.getRow(1).values as unknown[]).slice(1);
    expect(headers.slice(0, 6)).toEqual(["Company", "Ticker", "CIK", "Period", "Period end", "Revenue"]);
    expect(headers).toContain("P/E");
    expect(String(ws.getRow(2).getCell(4).value)).toMatch(/^FY\d{4}$/);

    const latest = await post("/v1/export/comps", { ciks: PEERS.slice(0, 2), period: "latest" });
    const lws = (await workbook(await latest.arrayBuffer())).getWorksheet("Comps")!;
    expect(String(lws.getRow(2).getCell(4).value)).toMatch(/^(FY|Q[1-4] FY)\d{4}$/);
  });

  test("unknown CIKs are 404 and all listed; bad bodies are 422", async () => {
    const unknown = await post("/v1/export/comps", { ciks: ["320193", "1", "2"] });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "Unknown CIKs: 0000000001, 0000000002" });
    const cases: [unknown, string[]][] = [
      [{ ciks: ["320193"] }, ["body", "ciks"]],
      [{ ciks: Array.from({ length: 26 }, (_, i) => String(i + 1)) }, ["body", "ciks"]],
      [{ ciks: ["320193", "0000320193"] }, ["body", "ciks", "1"]],
      [{ ciks: ["320193", "AAPL"] }, ["body", "ciks", "1"]],
      [{ ciks: PEERS, metrics: ["revenue", "bogus"] }, ["body", "metrics", "1"]],
      [{ ciks: PEERS, metrics: [] }, ["body", "metrics"]],
      [{ ciks: PEERS, period: "H1" }, ["body", "period"]],
      [{ ciks: PEERS, fiscal_year: "2023" }, ["body", "fiscal_year"]],
      [{ ciks: PEERS, extra: 1 }, ["body", "extra"]],
    ];
    for (const [body, loc] of cases) {
      const res = await post("/v1/export/comps", body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect(await detailLocs(res)).toContainEqual(loc);
    }
  });
});

describe.skipIf(!secDir)("POST /v1/share/email with an export attached", () => {
  test("the financials workbook arrives as a parseable xlsx attachment", async () => {
    const before = smtp.received.length;
    const res = await post("/v1/share/email", {
      to: ["pm@example.com"],
      subject: "Apple financials",
      message: "Attached, as discussed.",
      attachment: { kind: "financials", cik: "320193", period: "FY", limit: 4 },
    });
    expect(res.status).toBe(202);
    const mail = smtp.received[before]!;
    expect(mail.envelope.to).toEqual(["pm@example.com"]);
    expect(mail.parsed.subject).toBe("Apple financials");
    expect(mail.parsed.text).toContain("Attached, as discussed.");
    const [att] = mail.parsed.attachments;
    expect(att?.filename).toMatch(/^cairn-financials-AAPL-\d{8}\.xlsx$/);
    expect(att?.contentType).toBe(XLSX);
    expect(mail.parsed.text).toContain(att?.filename ?? "?");
    const wb = await workbook(new Uint8Array(att!.content).buffer);
    const income = wb.getWorksheet("Income (annual)")!;
    const fy2023 = (income.getRow(1).values as unknown[]).indexOf("FY2023");
    expect(income.getRow(3).getCell(fy2023).value).toBe(APPLE_FY2023_REVENUE);
  });

  test("a comps attachment; an unknown CIK in it is 404 and nothing is sent", async () => {
    const before = smtp.received.length;
    const res = await post("/v1/share/email", {
      to: ["pm@example.com", "cio@example.com"],
      subject: "Peer margins",
      message: "FY2023 peers.",
      attachment: { kind: "comps", ciks: PEERS, metrics: ["gross_margin"], fiscal_year: 2023 },
    });
    expect(res.status).toBe(202);
    const att = smtp.received[before]!.parsed.attachments[0]!;
    expect(att.filename).toMatch(/^cairn-comps-FY2023-\d{8}\.xlsx$/);
    const ws = (await workbook(new Uint8Array(att.content).buffer)).getWorksheet("Comps")!;
    expect(ws.getRow(2).getCell(6).value).toBeCloseTo(0.441, 3);

    const bad = await post("/v1/share/email", {
      to: ["pm@example.com"],
      subject: "x",
      message: "y",
      attachment: { kind: "financials", cik: "1" },
    });
    expect(bad.status).toBe(404);
    expect(smtp.received.length).toBe(before + 1);
  });
});
