/**
 * The SEC payloads this pipeline reads, validated at the edge (STYLE 5): companyfacts,
 * submissions and company_tickers.json. Whatever passes is typed; a malformed payload is
 * refused with the path of its first problem.
 */
import { z } from "zod";
import {
  type CompanyProfile,
  type FilingRow,
  normalizeCik,
  type StoredFact,
} from "../../../domain/financials/fields.ts";

const cikField = z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,10}$/)]);
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}/);

const FactEntry = z.object({
  start: date.optional(),
  end: date,
  val: z.number(),
  accn: z.string().min(1),
  fy: z.number().int().nullable().optional(),
  fp: z.string().nullable().optional(),
  form: z.string(),
  filed: date,
  frame: z.string().optional(),
});

export const CompanyFactsPayload = z.object({
  cik: cikField,
  entityName: z.string().nullable().optional(),
  facts: z.record(
    z.string(),
    z.record(z.string(), z.object({ units: z.record(z.string(), z.array(FactEntry)) }).passthrough()),
  ),
});

export const SubmissionsPayload = z
  .object({
    cik: cikField,
    name: z.string().nullable().optional(),
    tickers: z.array(z.string()).default([]),
    exchanges: z.array(z.string().nullable()).default([]),
    sic: z.string().nullable().optional(),
    sicDescription: z.string().nullable().optional(),
    fiscalYearEnd: z.string().nullable().optional(),
    stateOfIncorporation: z.string().nullable().optional(),
    filings: z.object({
      recent: z.object({
        accessionNumber: z.array(z.string()),
        filingDate: z.array(z.string()),
        reportDate: z.array(z.string().nullable()).optional(),
        form: z.array(z.string()),
        primaryDocument: z.array(z.string().nullable()).optional(),
      }),
    }),
  })
  .passthrough();

export const TickersPayload = z.record(
  z.string(),
  z.object({ cik_str: cikField, ticker: z.string(), title: z.string() }),
);

export class PayloadError extends Error {
  override readonly name = "PayloadError";
}

function parse<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  throw new PayloadError(`${what}: ${first ? `${first.path.join(".")}: ${first.message}` : "invalid"}`);
}

const cikOf = (raw: number | string, what: string): string => {
  const cik = normalizeCik(String(raw));
  if (!cik) throw new PayloadError(`${what}: bad cik ${raw}`);
  return cik;
};

export interface ParsedCompanyFacts {
  cik: string;
  name: string | null;
  facts: StoredFact[];
}

export function parseCompanyFacts(raw: unknown): ParsedCompanyFacts {
  const p = parse(CompanyFactsPayload, raw, "companyfacts");
  const facts: StoredFact[] = [];
  for (const [taxonomy, concepts] of Object.entries(p.facts)) {
    for (const [concept, body] of Object.entries(concepts)) {
      for (const [unit, list] of Object.entries(body.units)) {
        for (const x of list) {
          facts.push({
            taxonomy,
            concept,
            unit,
            start: x.start ? x.start.slice(0, 10) : null,
            end: x.end.slice(0, 10),
            val: x.val,
            accn: x.accn,
            fy: x.fy ?? null,
            fp: x.fp ?? null,
            form: x.form,
            filed: x.filed.slice(0, 10),
            frame: x.frame ?? null,
          });
        }
      }
    }
  }
  return { cik: cikOf(p.cik, "companyfacts"), name: p.entityName ?? null, facts };
}

export interface ParsedSubmissions {
  profile: CompanyProfile;
  filings: FilingRow[];
}

export function parseSubmissions(raw: unknown): ParsedSubmissions {
  const p = parse(SubmissionsPayload, raw, "submissions");
  const r = p.filings.recent;
  const filings: FilingRow[] = r.accessionNumber.map((accn, i) => ({
    accession_number: accn,
    form: r.form[i] ?? "",
    filing_date: (r.filingDate[i] ?? "").slice(0, 10),
    report_date: r.reportDate?.[i] ? (r.reportDate[i] ?? "").slice(0, 10) || null : null,
    primary_document: r.primaryDocument?.[i] || null,
  }));
  const tickers = p.tickers.filter((t) => t !== "");
  return {
    profile: {
      cik: cikOf(p.cik, "submissions"),
      name: p.name ?? null,
      ticker: tickers[0] ?? null,
      tickers,
      exchanges: p.exchanges.filter((e): e is string => !!e),
      sic: p.sic || null,
      sic_description: p.sicDescription || null,
      fiscal_year_end: p.fiscalYearEnd || null,
      state_of_incorporation: p.stateOfIncorporation || null,
    },
    filings: filings.filter((f) => f.accession_number && f.form && /^\d{4}-\d{2}-\d{2}$/.test(f.filing_date)),
  };
}

/** CIK -> tickers (file order: the first is the primary listing) and title. */
export type TickerMap = Map<string, { tickers: string[]; title: string }>;

export function parseTickers(raw: unknown): TickerMap {
  const p = parse(TickersPayload, raw, "company_tickers");
  const out: TickerMap = new Map();
  const rows = Object.entries(p).sort(([a], [b]) => Number(a) - Number(b));
  for (const [, row] of rows) {
    const cik = normalizeCik(String(row.cik_str));
    if (!cik) continue;
    const cur = out.get(cik);
    if (cur) cur.tickers.push(row.ticker);
    else out.set(cik, { tickers: [row.ticker], title: row.title });
  }
  return out;
}
