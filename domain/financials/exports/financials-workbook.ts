/**
 * The single-company workbook (GET /v1/export/financials/{cik}): a Company sheet, then
 * one sheet per statement and frequency. Statement sheets put line items in rows and
 * periods in columns, oldest on the left, as analysts lay out a model; the last row of
 * each carries the accession number of the filing every column comes from.
 */
import {
  type CompanyFacts,
  type IncomeStatementRecord,
  RATIO_FIELDS,
  type RatioRecord,
  type StatementQuery,
} from "../fields.ts";
import { INCOME_FIELDS, INCOME_METRICS, RATIO_METRICS } from "./metrics.ts";
import { dateStamp, edgarFilingUrl, periodLabel, safeFileStem } from "./provenance.ts";
import { type Cell, num, type SheetSpec, text, type WorkbookSpec } from "./workbook.ts";

export const FINANCIALS_SHEETS = {
  company: "Company",
  incomeAnnual: "Income (annual)",
  incomeQuarterly: "Income (quarterly)",
  ratiosAnnual: "Ratios (annual)",
  ratiosQuarterly: "Ratios (quarterly)",
} as const;

export interface FinancialsExportData {
  company: CompanyFacts;
  /** Each list newest first, as the reader returns them. */
  income: { annual: IncomeStatementRecord[]; quarterly: IncomeStatementRecord[] };
  ratios: { annual: RatioRecord[]; quarterly: RatioRecord[] };
  /** The selection, repeated on the Company sheet. */
  query: StatementQuery;
  generatedAt: Date;
}

const LABEL_WIDTH = 38;
const PERIOD_WIDTH = 18;

interface PeriodColumn {
  label: string;
  reportPeriod: string | null;
  accession: string;
}

/** Rows of one statement sheet: a period-end row, one row per line item, the source row. */
function statementSheet(
  name: string,
  cik: string,
  periods: PeriodColumn[],
  lines: { label: string; cells: Cell[] }[],
  notes: string[],
): SheetSpec {
  if (periods.length === 0) {
    return {
      name,
      columns: [{ header: "Line item", width: LABEL_WIDTH }],
      rows: [],
      freeze: { rows: 1, columns: 1 },
      notes: ["No periods match this export's filter.", ...notes],
    };
  }
  const rows: Cell[][] = [
    [text("Period end", { bold: true }), ...periods.map((p) => ({ value: p.reportPeriod, format: "date" as const }))],
    ...lines.map((l) => [text(l.label), ...l.cells]),
    [
      text("Source filing (accession no.)", { italic: true }),
      ...periods.map((p) => {
        const link = edgarFilingUrl(cik, p.accession);
        return text(p.accession, link ? { link } : {});
      }),
    ],
  ];
  return {
    name,
    columns: [
      { header: "Line item", width: LABEL_WIDTH },
      ...periods.map((p) => ({ header: p.label, width: PERIOD_WIDTH })),
    ],
    rows,
    freeze: { rows: 1, columns: 1 },
    notes,
  };
}

function incomeSheet(name: string, cik: string, newestFirst: IncomeStatementRecord[], notes: string[]): SheetSpec {
  const recs = [...newestFirst].reverse();
  const periods = recs.map((r) => ({
    label: periodLabel(r.fiscal_period_code, r.fiscal_year, r.report_period),
    reportPeriod: r.report_period,
    accession: r.accession_number,
  }));
  const lines = INCOME_FIELDS.map((f) => ({
    label: INCOME_METRICS[f].label,
    cells: recs.map((r) => num(r[f], INCOME_METRICS[f].format)),
  }));
  return statementSheet(name, cik, periods, lines, notes);
}

function ratiosSheet(name: string, cik: string, newestFirst: RatioRecord[], notes: string[]): SheetSpec {
  const recs = [...newestFirst].reverse();
  const periods = recs.map((r) => ({
    label: periodLabel(r.fiscal_period, r.fiscal_year, r.report_period),
    reportPeriod: r.report_period,
    accession: r.accession_number,
  }));
  const lines = RATIO_FIELDS.map((f) => ({
    label: RATIO_METRICS[f].label,
    cells: recs.map((r) => num(r[f], RATIO_METRICS[f].format)),
  }));
  lines.push({
    label: "Market cap is trailing",
    cells: recs.map((r) => text(r.market_cap_is_trailing === null ? null : r.market_cap_is_trailing ? "yes" : "no")),
  });
  lines.push({ label: "Currency", cells: recs.map((r) => text(r.currency)) });
  return statementSheet(name, cik, periods, lines, notes);
}

function describeQuery(q: FinancialsExportData["query"]): string {
  const parts = [`up to ${q.limit} periods per sheet`];
  parts.push(q.period ? `period ${q.period} only` : "all periods");
  if (q.fiscal_year !== undefined) parts.push(`fiscal year ${q.fiscal_year}`);
  return parts.join("; ");
}

function companySheet(d: FinancialsExportData): SheetSpec {
  const c = d.company;
  const field = (label: string, value: string | null): Cell[] => [text(label, { bold: true }), text(value)];
  const rows: Cell[][] = [
    field("Name", c.name),
    field("CIK", c.cik),
    field("Ticker", c.ticker),
    field("All tickers", c.tickers.join(", ") || null),
    field("Exchanges", c.exchanges.join(", ") || null),
    field("SIC", c.sic),
    field("Industry", c.sic_description),
    field("Fiscal year end (MMDD)", c.fiscal_year_end),
    field("State of incorporation", c.state_of_incorporation),
    field("Generated at (UTC)", d.generatedAt.toISOString()),
    field("Selection", describeQuery(d.query)),
    field("Source", "SEC EDGAR XBRL filings, standardised by Cairn"),
    [],
    [text("Filings used", { bold: true }), text("Sheets and periods", { bold: true })],
  ];
  // One line per filing, naming every sheet column it feeds: the audit trail of the workbook.
  const uses = new Map<string, string[]>();
  const note = (accession: string, use: string) => uses.set(accession, [...(uses.get(accession) ?? []), use]);
  for (const [sheet, recs] of [
    [FINANCIALS_SHEETS.incomeAnnual, d.income.annual],
    [FINANCIALS_SHEETS.incomeQuarterly, d.income.quarterly],
  ] as const) {
    for (const r of recs)
      note(r.accession_number, `${sheet} ${periodLabel(r.fiscal_period_code, r.fiscal_year, r.report_period)}`);
  }
  for (const [sheet, recs] of [
    [FINANCIALS_SHEETS.ratiosAnnual, d.ratios.annual],
    [FINANCIALS_SHEETS.ratiosQuarterly, d.ratios.quarterly],
  ] as const) {
    for (const r of recs)
      note(r.accession_number, `${sheet} ${periodLabel(r.fiscal_period, r.fiscal_year, r.report_period)}`);
  }
  for (const [accession, used] of [...uses].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))) {
    const link = edgarFilingUrl(c.cik, accession);
    rows.push([text(accession, link ? { link } : {}), text(used.join("; "))]);
  }
  return {
    name: FINANCIALS_SHEETS.company,
    columns: [
      { header: "Field", width: 30 },
      { header: "Value", width: 90 },
    ],
    rows,
    freeze: { rows: 1, columns: 0 },
    notes: [],
  };
}

export function buildFinancialsWorkbook(d: FinancialsExportData): WorkbookSpec {
  const cik = d.company.cik;
  const common = [
    "Empty cell: not reported in the filing or not computable (never zero).",
    "Source: SEC EDGAR XBRL filings; the last row names the filing (accession number) of each column.",
  ];
  const amounts = [
    "Amounts in the reporting currency as filed; per-share values in currency per share; shares in units.",
  ];
  const ratios = ["Margins, returns, growth, payout and yield are percentages; other ratios are multiples or days."];
  return {
    title: `${d.company.name ?? `CIK ${cik}`} financials`,
    sheets: [
      companySheet(d),
      incomeSheet(FINANCIALS_SHEETS.incomeAnnual, cik, d.income.annual, [...amounts, ...common]),
      incomeSheet(FINANCIALS_SHEETS.incomeQuarterly, cik, d.income.quarterly, [...amounts, ...common]),
      ratiosSheet(FINANCIALS_SHEETS.ratiosAnnual, cik, d.ratios.annual, [...ratios, ...common]),
      ratiosSheet(FINANCIALS_SHEETS.ratiosQuarterly, cik, d.ratios.quarterly, [...ratios, ...common]),
    ],
  };
}

/** `cairn-financials-AAPL-20240105.xlsx` (ticker when known, else the CIK). */
export function financialsFileName(company: CompanyFacts, at: Date, extension: string): string {
  return `cairn-financials-${safeFileStem(company.ticker ?? company.cik)}-${dateStamp(at)}.${extension}`;
}
