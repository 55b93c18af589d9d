/**
 * Company linking: which listed companies an article is about, as tickers and names.
 * Signals, strongest first: tickers the publisher tagged and SEC CIKs in filing titles;
 * cashtags ($AAPL); exchange-qualified tickers (NASDAQ: MSFT); company names from the SEC
 * ticker map ("Apple" → AAPL). Names are the noisy signal, so a name must be capitalised
 * in the text and a one-word name that is also an everyday word ("Target", "Gap") is
 * stop-listed; such companies still link through cashtags, exchange tickers or their
 * full name ("Target Corp").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Company, TickerMap } from "./ticker-map.ts";
import { isCapitalised, type Token, tokenize } from "./tokens.ts";

export interface CompanyLinks {
  tickers: string[];
  names: string[];
}

/** Trailing words of SEC registrant names that are legal form, not name. */
const LEGAL = new Set(
  (
    "inc incorporated corp corporation co company companies ltd limited plc p.l.c llc lp l.p n.v nv s.a sa ag se " +
    "asa ab spa s.p.a sab de cv holdings holding group groep trust com adr bancorp new the"
  ).split(" "),
);

/** Legal forms a stop-listed name is still linked with ("Target Corp", "Target Corporation"). */
const LEGAL_FORMS = ["inc", "corp", "corporation", "co", "company", "group", "plc", "ltd"];

/** Trailing descriptors a company is usually named without ("Cisco Systems" → "Cisco"). */
const DESCRIPTORS = new Set(
  (
    "technologies technology systems platforms communications international worldwide global financial services " +
    "pharmaceuticals therapeutics brands industries enterprises networks software semiconductors semiconductor " +
    "entertainment interactive"
  ).split(" "),
);

/** Words an alias may have in lower case ("Bank of America"). */
const CONNECTORS = new Set(["of", "and", "the", "de", "du", "la", "&"]);

/**
 * Names the SEC file does not give but the press uses. Also the one-word names that are
 * everyday words but in capitalised financial text nearly always mean the company.
 */
const CURATED: [alias: string, ticker: string][] = [
  ["Apple", "AAPL"],
  ["Amazon", "AMZN"],
  ["Oracle", "ORCL"],
  ["Shell", "SHEL"],
  ["Meta", "META"],
  ["Google", "GOOGL"],
  ["Alphabet", "GOOGL"],
  ["Facebook", "META"],
  ["JPMorgan", "JPM"],
  ["J.P. Morgan", "JPM"],
  ["Goldman", "GS"],
  ["Berkshire", "BRK-B"],
  ["Exxon", "XOM"],
  ["ExxonMobil", "XOM"],
  ["Coca-Cola", "KO"],
  ["McDonald's", "MCD"],
  ["Disney", "DIS"],
  ["Wal-Mart", "WMT"],
  ["P&G", "PG"],
  ["Citi", "C"],
  ["BofA", "BAC"],
  ["IBM", "IBM"],
  ["AMD", "AMD"],
  ["Hewlett Packard", "HPQ"],
  ["Nvidia", "NVDA"],
  ["Tesla", "TSLA"],
  ["Microsoft", "MSFT"],
  ["Netflix", "NFLX"],
  ["Boeing", "BA"],
  ["Intel", "INTC"],
  ["Nike", "NKE"],
];

export const AMBIGUOUS_NAMES_FILE = join(import.meta.dir, "data", "ambiguous-names.txt");

/** One word per line, '#' comments; the lower-cased one-word names never linked by name alone. */
export function loadAmbiguousNames(path: string = AMBIGUOUS_NAMES_FILE): Set<string> {
  const out = new Set<string>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const w = line.replace(/#.*/, "").trim().toLowerCase();
    if (w) out.add(w);
  }
  return out;
}

/** Lower-case alias tokens of an SEC registrant name: legal-form words and "/DE/" tags removed. */
export function nameAliases(secTitle: string): string[][] {
  const cleaned = secTitle.replace(/[/\\]+[A-Z]{2,3}\b[/\\]?/g, " ").replace(/[/\\]+$/, "");
  const toks = tokenize(cleaned).map((t) => t.lower);
  while (toks.length > 1 && (LEGAL.has(toks.at(-1) ?? "") || (toks.at(-1) ?? "").length === 1)) toks.pop();
  while (toks.length > 1 && toks[0] === "the") toks.shift();
  if (toks.length === 0) return [];
  const out = [toks];
  const short = [...toks];
  while (short.length > 1 && DESCRIPTORS.has(short.at(-1) ?? "")) short.pop();
  if (short.length < toks.length) out.push(short);
  return out;
}

interface Alias {
  tokens: string[];
  company: Company;
}

export class CompanyLinker {
  /** First token → aliases starting with it, longest first. */
  private readonly index = new Map<string, Alias[]>();
  private readonly taken = new Set<string>();

  constructor(
    private readonly map: TickerMap,
    private readonly ambiguous: ReadonlySet<string>,
  ) {
    const add = (tokens: string[], company: Company, curated: boolean) => {
      const key = tokens.join(" ");
      // Larger companies come first in the SEC file, so the first claim on a name wins.
      if (this.taken.has(key)) return;
      if (!curated && tokens.length === 1 && (this.ambiguous.has(key) || key.length < 3 || /^\d+$/.test(key))) return;
      this.taken.add(key);
      const first = tokens[0] ?? "";
      const list = this.index.get(first) ?? [];
      list.push({ tokens, company });
      list.sort((a, b) => b.tokens.length - a.tokens.length);
      this.index.set(first, list);
    };
    for (const [alias, ticker] of CURATED) {
      const company = map.byTicker(ticker);
      if (company)
        add(
          tokenize(alias).map((t) => t.lower),
          company,
          true,
        );
    }
    const companies = map.companies();
    // Full names before shortened ones, so "Cisco Systems" never yields to another "Cisco".
    for (const c of companies) {
      const [full] = nameAliases(c.secTitle);
      if (!full) continue;
      add(full, c, false);
      // A stop-listed one-word name stays reachable with its legal form: "Target Corp".
      if (full.length === 1 && this.ambiguous.has(full[0] ?? "")) {
        for (const form of LEGAL_FORMS) add([...full, form], c, true);
      }
    }
    for (const c of companies) {
      const short = nameAliases(c.secTitle)[1];
      if (short) add(short, c, false);
    }
  }

  link(text: string, hints: { tickers?: string[]; ciks?: number[] } = {}): CompanyLinks {
    const tickers: string[] = [];
    const names: string[] = [];
    const push = (ticker: string, company: Company | undefined) => {
      if (tickers.includes(ticker)) return;
      tickers.push(ticker);
      if (company && !names.includes(company.name)) names.push(company.name);
    };
    for (const cik of hints.ciks ?? []) {
      const c = this.map.byCik(cik);
      if (c) push(c.ticker, c);
    }
    // A publisher's or exchange-qualified ticker is trusted even when the map no longer
    // lists it (FB before it became META); a bare cashtag must be a known ticker.
    for (const t of hints.tickers ?? []) this.pushTicker(t, push);
    for (const m of text.matchAll(CASHTAG)) {
      const c = this.lookup(m[1] ?? "");
      if (c) push(c.ticker, c);
    }
    for (const m of text.matchAll(EXCHANGE_TICKER)) this.pushTicker(m[1] ?? "", push);
    for (const c of this.names(tokenize(text))) push(c.ticker, c);
    return { tickers, names };
  }

  /** The map writes share classes with a hyphen (BRK-B); the press often uses a dot (BRK.B). */
  private lookup(ticker: string): Company | undefined {
    const t = ticker.toUpperCase();
    return this.map.byTicker(t) ?? this.map.byTicker(t.replace(".", "-"));
  }

  /**
   * Known tickers become the company's primary ticker (GOOG → GOOGL, BRK.B → BRK-B), so a
   * filter on one ticker finds every article about the company; unknown ones stay as written.
   */
  private pushTicker(raw: string, push: (ticker: string, company: Company | undefined) => void): void {
    const c = this.lookup(raw);
    push(c ? c.ticker : raw.toUpperCase(), c);
  }

  private *names(tokens: Token[]): Generator<Company> {
    let i = 0;
    while (i < tokens.length) {
      const tok = tokens[i] as Token;
      const candidates = isCapitalised(tok) ? this.index.get(tok.lower) : undefined;
      const hit = candidates?.find((a) => this.matchesAt(tokens, i, a.tokens));
      if (hit) {
        yield hit.company;
        i += hit.tokens.length;
      } else {
        i++;
      }
    }
  }

  private matchesAt(tokens: Token[], at: number, alias: string[]): boolean {
    for (let k = 0; k < alias.length; k++) {
      const t = tokens[at + k];
      if (!t || t.lower !== alias[k]) return false;
      if (!CONNECTORS.has(t.lower) && !isCapitalised(t)) return false;
    }
    return true;
  }
}

const CASHTAG = /(?<![\w$])\$([A-Za-z]{1,5}(?:[.-][A-Za-z]{1,2})?)\b/g;
// Upper-case tickers only: "Nasdaq: the index fell" must not link a company called THE.
const EXCHANGE_TICKER =
  /\b(?:NASDAQ|Nasdaq|NYSE(?:\s?American|\s?Arca|\s?MKT)?|AMEX|NYSEARCA|OTC(?:QX|QB)?|CBOE|BATS|TSXV?|LSE|ASX|HKEX)\s*:\s*([A-Z]{1,5}(?:[.-][A-Z]{1,2})?)\b/g;

/** The linker over the bundled SEC ticker map (or the file at tickerMapPath). ~100 ms; build once. */
export function createCompanyLinker(tickerMapPath?: string): CompanyLinker {
  return new CompanyLinker(TickerMap.load(tickerMapPath), loadAmbiguousNames());
}
