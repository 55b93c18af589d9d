/**
 * The SEC ticker map (company_tickers.json: CIK, ticker, registrant name). A bundled copy
 * (data/sec-company-tickers.tsv) keeps enrichment offline; CAIRN_NEWS_TICKER_MAP may point
 * at a fresher download in either the SEC's JSON format or this TSV. File order is kept:
 * the SEC lists larger companies first, and the first ticker of a CIK is its primary one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Company {
  cik: number;
  /** Primary ticker of the CIK. */
  ticker: string;
  /** Display name, e.g. "Microsoft Corp" from "MICROSOFT CORP". */
  name: string;
  /** The registrant name as the SEC writes it. */
  secTitle: string;
  /** Position in the SEC file (0 = largest); breaks ties between companies sharing a name. */
  rank: number;
}

export const BUNDLED_TICKER_MAP = join(import.meta.dir, "data", "sec-company-tickers.tsv");

/** Short words kept upper-case when an all-caps SEC title is title-cased (acronyms). */
const LOWER_SHORT = new Set(["co", "inc", "the", "of", "and", "new", "one", "oil", "gas", "air", "bio", "net", "lab"]);

const CONNECTORS = new Set(["of", "and", "the", "de", "for"]);

/** "MICROSOFT CORP" → "Microsoft Corp"; mixed-case titles ("Apple Inc.") are kept. */
export function displayName(secTitle: string): string {
  const t = secTitle.replace(/\s*[/\\][A-Z]{2,3}[/\\]?\s*$/, "").trim();
  if (t !== t.toUpperCase()) return t;
  return t
    .split(/\s+/)
    .map((w, i) => {
      const letters = w.replace(/[^A-Za-z]/g, "");
      if (i > 0 && CONNECTORS.has(letters.toLowerCase())) return w.toLowerCase();
      const acronym = (letters.length <= 3 && !LOWER_SHORT.has(letters.toLowerCase())) || !/[AEIOUY]/.test(letters);
      return acronym ? w : w.charAt(0) + w.slice(1).toLowerCase();
    })
    .join(" ");
}

export class TickerMap {
  private readonly tickers = new Map<string, Company>();
  private readonly ciks = new Map<number, Company>();
  private readonly ordered: Company[] = [];

  constructor(rows: Iterable<{ cik: number; ticker: string; title: string }>) {
    for (const r of rows) {
      const ticker = r.ticker.trim().toUpperCase();
      if (!ticker || !Number.isInteger(r.cik)) continue;
      let company = this.ciks.get(r.cik);
      if (!company) {
        company = { cik: r.cik, ticker, name: displayName(r.title), secTitle: r.title, rank: this.ordered.length };
        this.ciks.set(r.cik, company);
        this.ordered.push(company);
      }
      // A secondary share class (GOOG next to GOOGL) still names the same company.
      if (!this.tickers.has(ticker)) this.tickers.set(ticker, company);
    }
  }

  static fromTsv(text: string): TickerMap {
    const rows: { cik: number; ticker: string; title: string }[] = [];
    for (const line of text.split("\n")) {
      if (!line || line.startsWith("#")) continue;
      const [cik, ticker, title] = line.split("\t");
      if (cik && ticker && title) rows.push({ cik: Number(cik), ticker, title: title.trim() });
    }
    return new TickerMap(rows);
  }

  /** The SEC's own format: {"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."}, ...}. */
  static fromSecJson(doc: unknown): TickerMap {
    const entries = Object.entries(
      (doc ?? {}) as Record<string, { cik_str?: unknown; ticker?: unknown; title?: unknown }>,
    )
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, e]) => ({ cik: Number(e.cik_str), ticker: String(e.ticker ?? ""), title: String(e.title ?? "") }));
    return new TickerMap(entries);
  }

  static load(path: string = BUNDLED_TICKER_MAP): TickerMap {
    const text = readFileSync(path, "utf8");
    return path.endsWith(".json") ? TickerMap.fromSecJson(JSON.parse(text)) : TickerMap.fromTsv(text);
  }

  byTicker(ticker: string): Company | undefined {
    return this.tickers.get(ticker.toUpperCase());
  }

  byCik(cik: number): Company | undefined {
    return this.ciks.get(cik);
  }

  /** One entry per CIK, in SEC order. */
  companies(): readonly Company[] {
    return this.ordered;
  }
}
