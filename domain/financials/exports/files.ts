/**
 * Builds the export workbooks from validated requests. Shared by the download routes and
 * the e-mail share route, so an attachment is byte-for-byte what the download would give.
 */
import { AppError } from "../../../../domain/errors.ts";
import {
  buildCompsWorkbook,
  buildFinancialsWorkbook,
  type CompsPeriod,
  compsFileName,
  type FinancialsSelection,
  financialsFileName,
  loadComps,
  loadFinancialsExport,
} from "../../../../domain/financials/exports/index.ts";
import { type FiscalPeriod, normalizeCik } from "../../../../domain/financials/fields.ts";
import type { AppDeps } from "../../../deps.ts";

export interface BuiltFile {
  filename: string;
  contentType: string;
  bytes: Uint8Array<ArrayBuffer>;
}

type ExportDeps = Pick<AppDeps, "financials" | "spreadsheets">;

function cikOf(raw: string): string {
  const cik = normalizeCik(raw);
  // The schemas only let 1-10 digits through, so this is a programming error if it fires.
  if (!cik) throw new AppError("internal", `Unvalidated CIK reached the export: ${raw}`);
  return cik;
}

export async function financialsFile(
  deps: ExportDeps,
  rawCik: string,
  q: { period?: FiscalPeriod | undefined; fiscal_year?: number | undefined; limit: number },
): Promise<BuiltFile> {
  const cik = cikOf(rawCik);
  const sel: FinancialsSelection = { limit: q.limit };
  if (q.period) sel.period = q.period;
  if (q.fiscal_year !== undefined) sel.fiscal_year = q.fiscal_year;
  const data = await loadFinancialsExport(deps.financials, cik, sel);
  if (!data) throw new AppError("not_found", `No company with CIK ${cik}`);
  const r = deps.spreadsheets;
  return {
    filename: financialsFileName(data.company, data.generatedAt, r.extension),
    contentType: r.contentType,
    bytes: await r.render(buildFinancialsWorkbook(data)),
  };
}

export async function compsFile(
  deps: ExportDeps,
  q: { ciks: string[]; metrics: string[]; period: CompsPeriod; fiscal_year?: number | undefined },
): Promise<BuiltFile> {
  const ciks = q.ciks.map(cikOf);
  const { companies, unknown } = await loadComps(deps.financials, ciks, q.period, q.fiscal_year);
  if (unknown.length > 0) throw new AppError("not_found", `Unknown CIKs: ${unknown.join(", ")}`);
  const at = new Date();
  const spec = buildCompsWorkbook({
    companies,
    metrics: q.metrics,
    period: q.period,
    ...(q.fiscal_year !== undefined ? { fiscalYear: q.fiscal_year } : {}),
    generatedAt: at,
  });
  const r = deps.spreadsheets;
  return {
    filename: compsFileName(q.period, q.fiscal_year, at, r.extension),
    contentType: r.contentType,
    bytes: await r.render(spec),
  };
}

/** `attachment; filename="..."` — our file names are ASCII by construction (safeFileStem). */
export function attachmentHeader(filename: string): string {
  return `attachment; filename="${filename}"`;
}
