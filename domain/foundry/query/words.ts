/**
 * The planner's vocabulary: market columns, months and number words, company names and tickers
 * in a question, fiscal periods, top-N, aggregates, thresholds and sectors, and the SQL they give.
 */
import type { Metric } from "./metrics.ts";
import type { KnownCompany, MarketColumn, PlanContext } from "./plan-types.ts";

export const MARKET_COLUMNS: { re: RegExp; column: MarketColumn }[] = [
  { re: /\badj(?:usted)?[ _.]?close\b/, column: "adj_close" },
  { re: /\bclos(?:e|es|ing)\b/, column: "close" },
  { re: /\bopen(?:ing)?\b/, column: "open" },
  { re: /\bhighs?\b|\bpeak\b/, column: "high" },
  { re: /\blows?\b|\btrough\b/, column: "low" },
  { re: /\bvolumes?\b|\bshares traded\b/, column: "volume" },
];

export const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  fifteen: 15,
  twenty: 20,
};

/** Upper-case words that look like tickers but are not. */
const NOT_TICKERS = new Set([
  "FY",
  "Q1",
  "Q2",
  "Q3",
  "Q4",
  "EPS",
  "ROE",
  "ROA",
  "ROIC",
  "SEC",
  "CEO",
  "CFO",
  "CTO",
  "USD",
  "EBIT",
  "R",
  "D",
  "A",
  "I",
  "SG",
  "PE",
  "US",
  "K",
  "Q",
  "COGS",
]);

/** Name words too generic to stand for a company on their own. */
const GENERIC = new Set([
  "the",
  "federal",
  "national",
  "american",
  "international",
  "global",
  "first",
  "united",
  "general",
  "two",
  "new",
  "logistic",
]);

export const STRIP_NAME =
  /\b(inc|incorporated|corp|corporation|co|company|ltd|limited|plc|llc|lp|ag|sa|nv|the|holdings?|group)\b\.?/g;

export const sqlStr = (s: string) => `'${s.replaceAll("'", "''")}'`;
export const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9&]+/g, " ")
    .trim();

/** The company names the planner recognises: ticker, full name and a short name. */
function aliases(c: KnownCompany): string[] {
  const out: string[] = [];
  const full = words(c.name.replace(STRIP_NAME, " ").replace(/[.,]/g, " "));
  const cleaned = words(c.name.toLowerCase().replace(STRIP_NAME, " "));
  for (const n of [full, cleaned]) if (n.length >= 3) out.push(n);
  const parts = cleaned.split(" ").filter(Boolean);
  const first = parts[0];
  if (first && first.length >= 4 && !GENERIC.has(first)) out.push(first);
  else if (parts.length >= 2) out.push(`${parts[0]} ${parts[1]}`);
  if (c.name.toLowerCase().startsWith("alphabet")) out.push("google");
  if (c.name.toLowerCase().includes("fannie mae")) out.push("fannie mae");
  return [...new Set(out)];
}

/** Companies the question names, in the order they appear. */
export function findCompanies(question: string, companies: KnownCompany[]): KnownCompany[] {
  const found: { at: number; c: KnownCompany }[] = [];
  const lower = ` ${words(question)} `;
  for (const c of companies) {
    let at = -1;
    if (c.ticker) {
      const m = new RegExp(`(^|[^A-Za-z0-9])${c.ticker.replace(".", "\\.")}([^A-Za-z0-9]|$)`).exec(question);
      if (m && !NOT_TICKERS.has(c.ticker)) at = m.index;
    }
    if (at < 0) {
      for (const a of aliases(c)) {
        const i = lower.indexOf(` ${a} `);
        if (i >= 0 && (at < 0 || i < at)) at = i;
        const possessive = lower.indexOf(` ${a} s `);
        if (possessive >= 0 && (at < 0 || possessive < at)) at = possessive;
      }
    }
    if (at >= 0) found.push({ at, c });
  }
  found.sort((a, b) => a.at - b.at);
  return found.map((f) => f.c);
}

/** Upper-case ticker-like words of the question (for symbols no company claims: ORCL, SP500_INDEX). */
export function tickerWords(question: string): string[] {
  const out: string[] = [];
  for (const m of question.matchAll(/(?<![A-Za-z0-9_])([A-Z][A-Z0-9]{0,9}(?:[._][A-Z0-9]+)*)(?![A-Za-z0-9_])/g)) {
    const w = m[1] as string;
    if (!NOT_TICKERS.has(w) && w.length >= 2) out.push(w);
  }
  return out;
}

interface Period {
  year?: number;
  years?: [number, number];
  quarter?: 1 | 2 | 3 | 4;
}

export function fiscalPeriod(q: string): Period {
  const p: Period = {};
  const range =
    /\b(?:from|between)\s+(?:fy\s*|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})\s+(?:to|and|through|-)\s+(?:fy\s*|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})\b/.exec(
      q,
    );
  if (range) p.years = [Number(range[1]), Number(range[2])].sort((a, b) => a - b) as [number, number];
  const fy = /\b(?:fy\s*'?|fiscal\s+(?:year\s+)?)((?:19|20)\d{2})\b/.exec(q) ?? /\bfy\s*'?(\d{2})\b/.exec(q);
  if (!p.years) {
    if (fy) p.year = Number((fy[1] as string).length === 2 ? `20${fy[1]}` : fy[1]);
    else {
      const y = /\b((?:19|20)\d{2})\b/.exec(q);
      if (y) p.year = Number(y[1]);
    }
  }
  const qm = /\bq([1-4])\b/.exec(q) ?? /\b(first|second|third|fourth) quarter\b/.exec(q);
  if (qm) {
    const n = { first: 1, second: 2, third: 3, fourth: 4 }[qm[1] as string] ?? Number(qm[1]);
    p.quarter = n as 1 | 2 | 3 | 4;
  }
  return p;
}

export function topN(q: string): { n: number; dir: "DESC" | "ASC" } | null {
  const asc = /\b(lowest|smallest|least|worst|bottom|weakest|fewest)\b/.test(q);
  const desc = /\b(top|highest|largest|biggest|most|best|greatest|strongest|leading)\b/.test(q);
  if (!asc && !desc) return null;
  const m =
    /\b(?:top|bottom|highest|lowest|largest|smallest|biggest|best|worst|first)\s+(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty)\b/.exec(
      q,
    );
  let n = 1;
  if (m) n = /^\d+$/.test(m[1] as string) ? Number(m[1]) : (NUMBER_WORDS[m[1] as string] ?? 1);
  else if (/\b(companies|tickers|firms|stocks)\b/.test(q)) n = 5;
  return { n: Math.max(1, Math.min(n, 100)), dir: asc ? "ASC" : "DESC" };
}

export function aggregateWord(q: string): "AVG" | "SUM" | "MEDIAN" | "MIN" | "MAX" | null {
  if (/\b(average|mean|avg)\b/.test(q)) return "AVG";
  if (/\bmedian\b/.test(q)) return "MEDIAN";
  if (/\b(total|sum|combined|aggregate|altogether)\b/.test(q)) return "SUM";
  return null;
}

/** `above $100 billion`, `over 50%`, `below 0`, `negative`: a comparison on the metric. */
export function threshold(q: string, kind: Metric["kind"]): { op: ">" | "<"; value: number } | null {
  if (/\b(negative|a loss|a net loss|net losses|losses|unprofitable|lost money)\b/.test(q))
    return { op: "<", value: 0 };
  const m =
    /\b(above|over|more than|greater than|exceeding|at least|higher than|below|under|less than|lower than)\s+\$?\s*(-?\d+(?:\.\d+)?)\s*(trillion|billion|million|thousand|bn|b|m|k|%|percent)?/.exec(
      q,
    );
  if (!m) return null;
  let v = Number(m[2]);
  const unit = m[3] ?? "";
  const scale: Record<string, number> = {
    trillion: 1e12,
    billion: 1e9,
    bn: 1e9,
    b: 1e9,
    million: 1e6,
    m: 1e6,
    thousand: 1e3,
    k: 1e3,
  };
  if (unit === "%" || unit === "percent") v /= 100;
  else if (scale[unit]) v *= scale[unit] as number;
  else if (kind === "ratio" && v > 1) v /= 100;
  const op = /above|over|more|greater|exceeding|at least|higher/.test(m[1] as string) ? ">" : "<";
  return { op, value: v };
}

export function sectorFilter(q: string, ctx: PlanContext): { column: "sector" | "industry"; value: string } | null {
  const values = (col: "sector" | "industry") =>
    [...new Set(ctx.companies.map((c) => c[col]).filter((v): v is string => Boolean(v)))].sort(
      (a, b) => b.length - a.length,
    );
  for (const col of ["industry", "sector"] as const) {
    for (const v of values(col)) {
      const lv = v.toLowerCase();
      const short = lv.split(/[,&]| and /)[0]?.trim() ?? lv;
      if (q.includes(lv) || (short.length >= 6 && new RegExp(`\\b${short.replace(/[^a-z0-9 ]/g, ".")}\\b`).test(q)))
        return { column: col, value: v };
    }
  }
  // A common word for an SIC division or description.
  if (/\bsemiconductor/.test(q)) {
    const v = values("industry").find((x) => /semiconductor/i.test(x));
    if (v) return { column: "industry", value: v };
  }
  return null;
}

export function periodWhere(p: Period, alias: string, defaultFy: boolean): string[] {
  const out: string[] = [];
  if (p.years) out.push(`${alias}fiscal_year BETWEEN ${p.years[0]} AND ${p.years[1]}`);
  else if (p.year !== undefined) out.push(`${alias}fiscal_year = ${p.year}`);
  if (p.quarter) out.push(`${alias}fiscal_period = 'Q${p.quarter}'`);
  else if (defaultFy) out.push(`${alias}fiscal_period = 'FY'`);
  return out;
}

export function periodText(p: Period): string {
  const base = p.years ? `fiscal ${p.years[0]}–${p.years[1]}` : p.year !== undefined ? `fiscal ${p.year}` : "";
  return p.quarter ? `${base} Q${p.quarter}`.trim() : base ? `${base} (full year)` : "";
}
