/**
 * The comparables workbook (POST /v1/export/comps): one row per company, one column per
 * metric, then median and mean rows. Each company contributes one period, chosen by the
 * request (see CompsPeriod); the row shows which period and which filings it used.
 */
import type { IncomeStatementRecord, RatioRecord } from "../fields.ts";
import { resolveMetric } from "./metrics.ts";
import { dateStamp, edgarFilingUrl, periodLabel } from "./provenance.ts";
import { type Cell, num, type SheetSpec, text, type WorkbookSpec } from "./workbook.ts";

/**
 * FY or Q1..Q4: that fiscal period (of fiscal_year when given, else each company's newest);
 * latest: each company's newest period of any kind, annual or quarterly.
 */
export const COMPS_PERIODS = ["FY", "Q1", "Q2", "Q3", "Q4", "latest"] as const;
export type CompsPeriod = (typeof COMPS_PERIODS)[number];

export interface CompsCompany {
  cik: string;
  name: string | null;
  ticker: string | null;
  /** The chosen period's records; null when the company has none for the selection. */
  income: IncomeStatementRecord | null;
  ratios: RatioRecord | null;
}

export interface CompsRequest {
  companies: CompsCompany[];
  /** Validated metric names (see COMPS_METRICS). */
  metrics: string[];
  period: CompsPeriod;
  fiscalYear?: number;
  generatedAt: Date;
}

export const COMPS_SHEET = "Comps";

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function mean(xs: number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function metricValue(c: CompsCompany, metric: string): number | null {
  const m = resolveMetric(metric);
  if (!m) return null;
  const v = m.from === "income" ? c.income?.[m.field] : c.ratios?.[m.field];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function describePeriod(period: CompsPeriod, fiscalYear: number | undefined): string {
  const which = period === "latest" ? "each company's latest reported period" : `fiscal period ${period}`;
  return fiscalYear === undefined ? `${which} (newest available)` : `${which}, fiscal year ${fiscalYear}`;
}

export function buildCompsWorkbook(req: CompsRequest): WorkbookSpec {
  const defs = req.metrics.map((name) => ({ name, def: resolveMetric(name) }));
  const rows: Cell[][] = req.companies.map((c) => {
    const anchor = c.ratios ?? c.income;
    const fp = c.ratios?.fiscal_period ?? c.income?.fiscal_period_code ?? null;
    const accessions = [...new Set([c.income?.accession_number, c.ratios?.accession_number].filter((a) => !!a))];
    return [
      text(c.name ?? c.cik),
      text(c.ticker),
      text(c.cik),
      text(anchor ? periodLabel(fp, anchor.fiscal_year, anchor.report_period) : null),
      { value: anchor?.report_period ?? null, format: "date" },
      ...defs.map(({ name, def }) => num(metricValue(c, name), def?.format ?? "ratio")),
      // Several filings (income and ratios may come from different ones) share one cell;
      // the first links to EDGAR.
      text(accessions.join(", ") || null, accessions[0] ? linkOf(c.cik, accessions[0]) : {}),
    ];
  });
  const stat = (label: string, f: (xs: number[]) => number | null): Cell[] => [
    text(label, { bold: true }),
    text(null),
    text(null),
    text(null),
    text(null),
    ...defs.map(({ name, def }) => {
      const xs = req.companies.map((c) => metricValue(c, name)).filter((v): v is number => v !== null);
      return { ...num(f(xs), def?.format ?? "ratio"), bold: true };
    }),
    text(null),
  ];
  rows.push(stat("Median", median), stat("Mean", mean));

  const missing = req.companies.filter((c) => !c.income && !c.ratios).map((c) => c.ticker ?? c.cik);
  const notes = [
    `Period: ${describePeriod(req.period, req.fiscalYear)}.`,
    "Median and mean are over the companies that have a value; empty cell: not reported or not computable (never zero).",
    "Amounts in the reporting currency as filed; margins, returns, growth and yields are percentages.",
    "Source: SEC EDGAR XBRL filings (accession numbers in the last column).",
  ];
  if (missing.length > 0) notes.push(`No data for the selected period: ${missing.join(", ")}.`);

  const sheet: SheetSpec = {
    name: COMPS_SHEET,
    columns: [
      { header: "Company", width: 32 },
      { header: "Ticker", width: 10 },
      { header: "CIK", width: 13 },
      { header: "Period", width: 13 },
      { header: "Period end", width: 12 },
      ...defs.map(({ name, def }) => ({
        header: def?.label ?? name,
        width: Math.max(14, Math.min(28, (def?.label ?? name).length + 2)),
      })),
      { header: "Source filings", width: 44 },
    ],
    rows,
    freeze: { rows: 1, columns: 1 },
    notes,
  };
  return { title: "Comparable companies", sheets: [sheet] };
}

function linkOf(cik: string, accession: string): { link?: string } {
  const link = edgarFilingUrl(cik, accession);
  return link ? { link } : {};
}

/** `cairn-comps-FY2023-20240105.xlsx`. */
export function compsFileName(period: CompsPeriod, fiscalYear: number | undefined, at: Date, ext: string): string {
  return `cairn-comps-${period}${fiscalYear ?? ""}-${dateStamp(at)}.${ext}`;
}
