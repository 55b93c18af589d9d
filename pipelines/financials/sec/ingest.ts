/**
 * SEC ingest steps, each idempotent: a source whose fingerprint (content plus everything
 * its derivation reads) is unchanged is skipped, and a changed one replaces its rows in
 * one transaction. Parsing and derivation are synchronous but bounded per company; the
 * pipeline yields to the event loop between companies and the store between batches.
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { CompanyProfile, FilingRow, StoredSegment } from "../../../domain/financials/fields.ts";
import type { FinancialsStore } from "../../../domain/financials/ports.ts";
import {
  classifyDuration,
  deriveCompany,
  FiscalCalendar,
  type InstanceMeta,
  latestPerConcept,
  memberLabel,
  parseMonthDay,
  type SegmentFact,
  STATEMENT_FORMS,
  toRatioRecord,
} from "../../../domain/financials/sec/index.ts";
import type { PriceBook } from "./market.ts";
import { parseCompanyFacts, parseSubmissions, type TickerMap } from "./sources.ts";

/** Bumped when derivation rules change, so every company is re-derived on the next ingest. */
export const SEC_DERIVATION_VERSION = "2025-1";

export interface IngestContext {
  store: FinancialsStore;
  prices: PriceBook;
  tickers: TickerMap;
  /** Re-derive even when fingerprints match. */
  force?: boolean;
  logger?: Logger;
}

export type StepStatus = "ingested" | "unchanged";

export const sha256 = (...parts: string[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\u0000");
  return h.digest("hex");
};

export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The filing-list fingerprint: it changes exactly when the company files (or the profile changes). */
export function submissionsFingerprint(profile: CompanyProfile, filings: FilingRow[]): string {
  return sha256(SEC_DERIVATION_VERSION, JSON.stringify(profile), filings.map((f) => f.accession_number).join(","));
}

export async function ingestSubmissions(
  ctx: IngestContext,
  raw: unknown,
): Promise<{ cik: string; status: StepStatus }> {
  const { profile, filings } = parseSubmissions(raw);
  const fp = submissionsFingerprint(profile, filings);
  if (!ctx.force && (await ctx.store.sourceFingerprint(profile.cik, "submissions")) === fp)
    return { cik: profile.cik, status: "unchanged" };
  const known = ctx.tickers.get(profile.cik);
  await ctx.store.upsertCompany({ ...profile, name: profile.name ?? known?.title ?? null });
  await ctx.store.upsertFilings(profile.cik, filings);
  await ctx.store.setFingerprint(profile.cik, "submissions", fp);
  return { cik: profile.cik, status: "ingested" };
}

/** Filings named by companyfacts (accession, form, date filed, period of report). */
function filingsFromFacts(facts: ReturnType<typeof parseCompanyFacts>["facts"]): FilingRow[] {
  const by = new Map<string, FilingRow>();
  for (const f of facts) {
    let row = by.get(f.accn);
    if (!row) {
      row = { accession_number: f.accn, form: f.form, filing_date: f.filed, report_date: null, primary_document: null };
      by.set(f.accn, row);
    }
    // A filing's own period is the latest end among its durations (instants such as the
    // cover-page share count are dated after it).
    if (f.start !== null && STATEMENT_FORMS.test(f.form) && (row.report_date === null || f.end > row.report_date))
      row.report_date = f.end;
  }
  return [...by.values()];
}

export async function ingestCompanyFacts(
  ctx: IngestContext,
  raw: unknown,
  contentHash: string,
): Promise<{ cik: string; status: StepStatus; income: number; ratios: number }> {
  const parsed = parseCompanyFacts(raw);
  const { cik } = parsed;
  const known = ctx.tickers.get(cik);
  const stored = await ctx.store.company(cik);
  const ticker = stored?.ticker ?? known?.tickers[0] ?? null;
  const tickers = [...new Set([...(stored?.tickers ?? []), ...(known?.tickers ?? [])])];
  const priceFp = tickers.map((t) => `${t}:${ctx.prices.fingerprints.get(t) ?? "-"}`).join(",");
  const fiscalYearEnd = stored?.fiscal_year_end ?? null;
  const fingerprint = sha256(SEC_DERIVATION_VERSION, contentHash, ticker ?? "", fiscalYearEnd ?? "", priceFp);
  if (!ctx.force && (await ctx.store.sourceFingerprint(cik, "companyfacts")) === fingerprint)
    return { cik, status: "unchanged", income: 0, ratios: 0 };

  await ctx.store.upsertCompany({
    cik,
    name: parsed.name ?? known?.title ?? null,
    ticker,
    tickers,
    exchanges: [],
    sic: null,
    sic_description: null,
    fiscal_year_end: null,
    state_of_incorporation: null,
  });
  await ctx.store.upsertFilings(cik, filingsFromFacts(parsed.facts));
  await yieldToLoop();
  const prices = ctx.prices.series.filter((s) => tickers.includes(s.ticker));
  const derived = deriveCompany({ cik, ticker, facts: parsed.facts, fiscalYearEnd, prices });
  await yieldToLoop();
  await ctx.store.replaceCompanyFacts({
    cik,
    fingerprint,
    facts: parsed.facts,
    latest: latestPerConcept(parsed.facts),
    income: derived.income,
    ratios: derived.ratios.map((r) => ({ record: toRatioRecord(r, cik, ticker), provenance: r.provenance })),
  });
  ctx.logger?.info(
    { cik, facts: parsed.facts.length, income: derived.income.length, splits: derived.model.splits.length },
    "sec ingest: companyfacts",
  );
  return { cik, status: "ingested", income: derived.income.length, ratios: derived.ratios.length };
}

export interface SegmentSource {
  /** Stable name of the source document (its path under the data directory). */
  source: string;
  contentHash: string;
  meta: InstanceMeta;
  facts: SegmentFact[];
  /** From a metadata file next to the instance, when there is one. */
  accession?: string | null;
  cik?: string | null;
}

export async function ingestSegments(
  ctx: IngestContext,
  src: SegmentSource,
): Promise<{ cik: string | null; status: StepStatus; rows: number }> {
  const rawCik = src.cik ?? src.meta.cik;
  const cik = rawCik ? rawCik.replace(/\D/g, "").padStart(10, "0") : null;
  if (!cik || src.facts.length === 0) return { cik, status: "unchanged", rows: 0 };
  const fingerprint = sha256(SEC_DERIVATION_VERSION, src.contentHash, src.accession ?? "");
  if (!ctx.force && (await ctx.store.sourceFingerprint(cik, `segments:${src.source}`)) === fingerprint)
    return { cik, status: "unchanged", rows: 0 };

  const known = ctx.tickers.get(cik);
  const fyEndMd = parseMonthDay(src.meta.fiscalYearEnd);
  const stored = await ctx.store.company(cik);
  // A company known from its own filings keeps that profile; an instance only introduces
  // companies we have nothing else about (its cover page names them).
  if (!stored)
    await ctx.store.upsertCompany({
      cik,
      name: src.meta.name ?? known?.title ?? null,
      ticker: src.meta.ticker ?? known?.tickers[0] ?? null,
      tickers: known?.tickers ?? (src.meta.ticker ? [src.meta.ticker] : []),
      exchanges: [],
      sic: null,
      sic_description: null,
      fiscal_year_end: fyEndMd ? fyEndMd.replace("-", "") : null,
      state_of_incorporation: null,
    });
  const calendar = new FiscalCalendar([], 0, parseMonthDay(stored?.fiscal_year_end) ?? fyEndMd);
  // The filing: named by a metadata file, else found by its form and report date.
  const accession =
    src.accession ??
    (src.meta.documentType && src.meta.periodEnd
      ? await ctx.store.findFiling(cik, src.meta.documentType, src.meta.periodEnd)
      : null);
  const rows: StoredSegment[] = src.facts.map((f) => {
    const kind = classifyDuration(f.start, f.end) === "annual" ? "annual" : "quarter";
    const label = calendar.label(f.end, kind);
    return {
      accession_number: accession,
      concept: f.concept,
      axis: f.axis,
      member: f.member,
      label: memberLabel(f.member),
      period_start: f.start,
      period_end: f.end,
      fiscal_year: label?.fiscal_year ?? null,
      fiscal_period: label ? (label.quarter === null ? "FY" : `Q${label.quarter}`) : null,
      period_type: kind === "annual" ? "annual" : "quarterly",
      value: f.value,
      currency: f.unit,
    };
  });
  await ctx.store.replaceSegments(cik, src.source, fingerprint, rows);
  return { cik, status: "ingested", rows: rows.length };
}
