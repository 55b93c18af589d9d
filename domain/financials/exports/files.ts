/**
 * Builds the export workbooks as files from validated requests. Shared by the download
 * endpoints and e-mail sharing, so an attachment is byte-for-byte what the download gives.
 */
import { AppError } from "../../errors.ts";
import { type FiscalPeriod, normalizeCik } from "../fields.ts";
import type { FinancialsReader, SpreadsheetRenderer } from "../ports.ts";
import { buildCompsWorkbook, type CompsPeriod, compsFileName } from "./comps-workbook.ts";
import { buildFinancialsWorkbook, financialsFileName } from "./financials-workbook.ts";
import { type FinancialsSelection, loadComps, loadFinancialsExport } from "./load.ts";

export interface BuiltFile {
  filename: string;
  contentType: string;
  bytes: Uint8Array<ArrayBuffer>;
}

export interface ExportSources {
  statements: FinancialsReader;
  spreadsheets: SpreadsheetRenderer;
}

export interface FinancialsFileQuery {
  period?: FiscalPeriod | undefined;
  fiscal_year?: number | undefined;
  limit: number;
}

export interface CompsFileQuery {
  ciks: string[];
  metrics: string[];
  period: CompsPeriod;
  fiscal_year?: number | undefined;
}

function cikOf(raw: string): string {
  const cik = normalizeCik(raw);
  // The schemas only let 1-10 digits through, so this is a programming error if it fires.
  if (!cik) throw new AppError("internal", `Unvalidated CIK reached the export: ${raw}`);
  return cik;
}

export async function financialsFile(src: ExportSources, rawCik: string, q: FinancialsFileQuery): Promise<BuiltFile> {
  const cik = cikOf(rawCik);
  const sel: FinancialsSelection = { limit: q.limit };
  if (q.period) sel.period = q.period;
  if (q.fiscal_year !== undefined) sel.fiscal_year = q.fiscal_year;
  const data = await loadFinancialsExport(src.statements, cik, sel);
  if (!data) throw new AppError("not_found", `No company with CIK ${cik}`);
  const r = src.spreadsheets;
  return {
    filename: financialsFileName(data.company, data.generatedAt, r.extension),
    contentType: r.contentType,
    bytes: await r.render(buildFinancialsWorkbook(data)),
  };
}

export async function compsFile(src: ExportSources, q: CompsFileQuery): Promise<BuiltFile> {
  const ciks = q.ciks.map(cikOf);
  const { companies, unknown } = await loadComps(src.statements, ciks, q.period, q.fiscal_year);
  if (unknown.length > 0) throw new AppError("not_found", `Unknown CIKs: ${unknown.join(", ")}`);
  const at = new Date();
  const spec = buildCompsWorkbook({
    companies,
    metrics: q.metrics,
    period: q.period,
    ...(q.fiscal_year !== undefined ? { fiscalYear: q.fiscal_year } : {}),
    generatedAt: at,
  });
  const r = src.spreadsheets;
  return {
    filename: compsFileName(q.period, q.fiscal_year, at, r.extension),
    contentType: r.contentType,
    bytes: await r.render(spec),
  };
}
