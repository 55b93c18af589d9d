/**
 * Closing-price series from a local market-data directory (the shared data's `market/`):
 * Yahoo-style daily CSVs named `<TICKER>_...csv` and long monthly tables (symbol,date,price).
 * Intraday bars, index levels and unnamed instruments are not company prices and are skipped.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { type PriceSeries, parseDailyCsv, parseMonthlyLongCsv } from "../../../domain/financials/sec/index.ts";

export interface PriceBook {
  series: PriceSeries[];
  /** Content hash per ticker, so a company is re-derived when its prices change. */
  fingerprints: Map<string, string>;
}

export const EMPTY_PRICE_BOOK: PriceBook = { series: [], fingerprints: new Map() };

const TICKER_FILE = /^([A-Z]{1,5})_.*\.csv$/;

export function loadPriceBook(dir: string | null): PriceBook {
  if (!dir || !existsSync(dir)) return EMPTY_PRICE_BOOK;
  const files: string[] = [];
  for (const d of [dir, join(dir, "daily")]) {
    if (!existsSync(d) || !statSync(d).isDirectory()) continue;
    for (const f of readdirSync(d).sort()) if (f.endsWith(".csv")) files.push(join(d, f));
  }
  const series: PriceSeries[] = [];
  const fingerprints = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const header = (text.slice(0, text.indexOf("\n")) || "").toLowerCase();
    const name = basename(file);
    const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
    let found: PriceSeries[] = [];
    if (/\bsymbol\b/.test(header) && /\bprice\b/.test(header)) found = parseMonthlyLongCsv(text, name);
    else {
      const m = TICKER_FILE.exec(name);
      const s = m?.[1] ? parseDailyCsv(text, m[1], name) : null;
      if (s) found = [s];
    }
    for (const s of found) {
      series.push(s);
      fingerprints.set(s.ticker, `${fingerprints.get(s.ticker) ?? ""}${hash}`);
    }
  }
  return { series, fingerprints };
}
