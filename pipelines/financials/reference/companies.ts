/**
 * The SEC ticker <-> CIK <-> name map (www.sec.gov/files/company_tickers.json, or the
 * company_tickers_exchange.json variant, which also names the exchange). Only what the
 * file states is returned: no exchange is guessed when the file has none.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { normalizeCik } from "../../../domain/financials/fields.ts";

export interface CompanyInfo {
  /** 10 digits, zero-padded. */
  cik: string;
  ticker: string;
  name: string;
  exchange: string | null;
}

interface TickerEntry {
  cik_str: number | string;
  ticker: string;
  title: string;
}
interface ExchangeFile {
  fields: string[];
  data: (string | number | null)[][];
}

function isExchangeFile(v: unknown): v is ExchangeFile {
  const o = v as Partial<ExchangeFile>;
  return Array.isArray(o.fields) && Array.isArray(o.data);
}

export class CompanyDirectory {
  private readonly byTickerMap = new Map<string, CompanyInfo>();
  private readonly byCikMap = new Map<string, CompanyInfo>();

  constructor(entries: CompanyInfo[]) {
    for (const e of entries) {
      this.byTickerMap.set(e.ticker.toUpperCase(), e);
      // The SEC lists a company's primary ticker first; keep that one for CIK lookups.
      if (!this.byCikMap.has(e.cik)) this.byCikMap.set(e.cik, e);
    }
  }

  static empty(): CompanyDirectory {
    return new CompanyDirectory([]);
  }

  static load(path: string): CompanyDirectory {
    const raw: unknown = JSON.parse(readFileSync(path, "utf8"));
    const out: CompanyInfo[] = [];
    const push = (cik: unknown, ticker: unknown, name: unknown, exchange: unknown) => {
      const c = normalizeCik(String(cik ?? ""));
      if (!c || typeof ticker !== "string" || !ticker) return;
      out.push({
        cik: c,
        ticker: ticker.toUpperCase(),
        name: typeof name === "string" ? name : "",
        exchange: typeof exchange === "string" && exchange ? exchange : null,
      });
    };
    if (isExchangeFile(raw)) {
      const at = (f: string) => raw.fields.indexOf(f);
      for (const row of raw.data) push(row[at("cik")], row[at("ticker")], row[at("name")], row[at("exchange")]);
    } else if (raw && typeof raw === "object") {
      for (const v of Object.values(raw as Record<string, TickerEntry>)) push(v.cik_str, v.ticker, v.title, null);
    }
    return new CompanyDirectory(out);
  }

  byTicker(ticker: string): CompanyInfo | null {
    return this.byTickerMap.get(ticker.toUpperCase()) ?? null;
  }

  byCik(cik: string): CompanyInfo | null {
    const c = normalizeCik(cik);
    return c ? (this.byCikMap.get(c) ?? null) : null;
  }
}

/**
 * Finds `relative` in `start` or one of its ancestors (three levels), so an ingest of
 * <data>/transcripts finds <data>/sec/company_tickers.json without being told.
 */
export function findReferenceFile(start: string, relative: string): string | null {
  let dir = resolve(start);
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}
