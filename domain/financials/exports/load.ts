/**
 * Gathers what the export builders need through the FinancialsReader port. The reader
 * answers one period kind per query (FY or a quarter), so the quarterly sheets merge the
 * four quarter queries and keep the newest `limit`.
 */
import {
  type CompanyFacts,
  type FiscalPeriod,
  type IncomeStatementRecord,
  PERIODS,
  type RatioRecord,
  type StatementQuery,
} from "../fields.ts";
import type { FinancialsReader } from "../ports.ts";
import type { CompsCompany, CompsPeriod } from "./comps-workbook.ts";
import type { FinancialsExportData } from "./financials-workbook.ts";

const QUARTERS = ["Q1", "Q2", "Q3", "Q4"] as const satisfies readonly FiscalPeriod[];

export interface FinancialsSelection {
  period?: FiscalPeriod;
  fiscal_year?: number;
  limit: number;
}

interface Dated {
  report_period: string | null;
  fiscal_year: number | null;
}

/** Newest first: by period end, then fiscal year; records without dates last. */
function newestFirst(a: Dated, b: Dated): number {
  const ra = a.report_period ?? "";
  const rb = b.report_period ?? "";
  if (ra !== rb) return ra < rb ? 1 : -1;
  return (b.fiscal_year ?? -1) - (a.fiscal_year ?? -1);
}

async function quarterly<T extends Dated>(
  fetch: (q: StatementQuery) => Promise<T[]>,
  sel: FinancialsSelection,
): Promise<T[]> {
  const base =
    sel.fiscal_year === undefined ? { limit: sel.limit } : { limit: sel.limit, fiscal_year: sel.fiscal_year };
  if (sel.period && sel.period !== "FY") return fetch({ ...base, period: sel.period });
  const parts = await Promise.all(QUARTERS.map((period) => fetch({ ...base, period })));
  return parts.flat().sort(newestFirst).slice(0, sel.limit);
}

/** Everything the financials workbook shows, or null when the CIK is unknown. */
export async function loadFinancialsExport(
  reader: FinancialsReader,
  cik: string,
  sel: FinancialsSelection,
  now: Date = new Date(),
): Promise<FinancialsExportData | null> {
  const company = await reader.company(cik);
  if (!company) return null;
  const wantAnnual = !sel.period || sel.period === "FY";
  const wantQuarterly = sel.period !== "FY";
  const annualQuery: StatementQuery = { period: "FY", limit: sel.limit };
  if (sel.fiscal_year !== undefined) annualQuery.fiscal_year = sel.fiscal_year;
  const none = async <T>(): Promise<T[]> => [];
  const [incA, incQ, ratA, ratQ] = await Promise.all([
    wantAnnual ? reader.income(cik, annualQuery) : none<IncomeStatementRecord>(),
    wantQuarterly ? quarterly((q) => reader.income(cik, q), sel) : none<IncomeStatementRecord>(),
    wantAnnual ? reader.ratios(cik, annualQuery) : none<RatioRecord>(),
    wantQuarterly ? quarterly((q) => reader.ratios(cik, q), sel) : none<RatioRecord>(),
  ]);
  return {
    company,
    income: { annual: incA, quarterly: incQ },
    ratios: { annual: ratA, quarterly: ratQ },
    query: sel,
    generatedAt: now,
  };
}

const asPeriod = (p: string | null): FiscalPeriod | undefined =>
  (PERIODS as readonly string[]).includes(p ?? "") ? (p as FiscalPeriod) : undefined;

const sameFiling = (i: IncomeStatementRecord, r: RatioRecord) =>
  i.fiscal_year === r.fiscal_year && i.fiscal_period_code === r.fiscal_period;

/**
 * One period per company. Income and ratios are fetched independently and may land on
 * different periods (one table can lag the other); the newer one then anchors the row and
 * the other is re-read for exactly that period, so a row never mixes two periods.
 */
async function compsRow(
  reader: FinancialsReader,
  company: CompanyFacts,
  period: CompsPeriod,
  fiscalYear: number | undefined,
): Promise<CompsCompany> {
  const q: StatementQuery = { limit: 1 };
  if (period !== "latest") q.period = period;
  if (fiscalYear !== undefined) q.fiscal_year = fiscalYear;
  let [income = null] = await reader.income(company.cik, q);
  let [ratios = null] = await reader.ratios(company.cik, q);
  if (income && ratios && !sameFiling(income, ratios)) {
    const incomeNewer = newestFirst(income, ratios) <= 0;
    const anchor: Dated & { period: FiscalPeriod | undefined } = incomeNewer
      ? { ...income, period: asPeriod(income.fiscal_period_code) }
      : { ...ratios, period: asPeriod(ratios.fiscal_period) };
    const again: StatementQuery = { limit: 1 };
    if (anchor.period) again.period = anchor.period;
    if (anchor.fiscal_year !== null) again.fiscal_year = anchor.fiscal_year;
    if (incomeNewer) [ratios = null] = await reader.ratios(company.cik, again);
    else [income = null] = await reader.income(company.cik, again);
  }
  return { cik: company.cik, name: company.name, ticker: company.ticker, income, ratios };
}

/** Rows for the comps grid in request order, and the CIKs the reader does not know. */
export async function loadComps(
  reader: FinancialsReader,
  ciks: string[],
  period: CompsPeriod,
  fiscalYear: number | undefined,
): Promise<{ companies: CompsCompany[]; unknown: string[] }> {
  const facts = await Promise.all(ciks.map((cik) => reader.company(cik)));
  const unknown = ciks.filter((_, i) => !facts[i]);
  if (unknown.length > 0) return { companies: [], unknown };
  const companies = await Promise.all(facts.map((f) => compsRow(reader, f as CompanyFacts, period, fiscalYear)));
  return { companies, unknown };
}
