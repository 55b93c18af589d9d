/**
 * The deterministic planner (docs/foundry-query.md "Shapes"): a question in English to one
 * read-only statement over the tenant's data, or a plain "cannot answer". No model, no
 * randomness: the same question over the same tables gives the same statement.
 *
 * Nothing the caller wrote reaches a statement as text: companies are matched against the
 * tenant's `companies` table (ticker or name) and written as the stored cik or ticker;
 * metrics, forms, sectors and labels come from fixed lists or the stored values; numbers are
 * parsed and re-rendered; free text (a graph company name) is passed as a parameter.
 */
import type { GraphValue } from "../graph/ports.ts";

/** A company of the tenant's `companies` table. */
export interface KnownCompany {
  cik: string;
  ticker: string | null;
  name: string;
  sector: string | null;
  industry: string | null;
}

export interface PlanContext {
  /** The namespace's lakehouse tables (lower-case). */
  tables: ReadonlySet<string>;
  companies: KnownCompany[];
  /** Whether the graph is there to ask. */
  graph: boolean;
  /** Whether the tenant's real-time `market_bars_daily` table is there to read. */
  timeseries: boolean;
  /** Whether the relational read models (pm.*, md.*) are there to read. */
  readModels?: boolean;
}

/** A question over the tenant's read models (pm.portfolios, pm.holdings, md.latest_quotes). */
export type ReadModelAsk =
  | { kind: "portfolios"; of: "portfolio" | "watchlist" | null }
  | { kind: "holdings"; name: string }
  | { kind: "holders"; ticker: string }
  | { kind: "quote"; ticker: string };

export type Agg = "avg" | "min" | "max" | "sum" | "count" | "first" | "last" | "change" | "rows";
export type MarketColumn = "open" | "high" | "low" | "close" | "adj_close" | "volume";

/** A time window over daily bars: [from, to) in UTC dates (YYYY-MM-DD), or the last N days of the data. */
export interface MarketWindow {
  symbol: string;
  column: MarketColumn;
  agg: Agg;
  range: { from: string; to: string } | { lastDays: number };
}

export type Plan =
  | { source: "lakehouse"; sql: string; explanation: string }
  | { source: "graph"; cypher: string; params: Record<string, GraphValue>; explanation: string }
  | { source: "timeseries"; market: MarketWindow; explanation: string }
  | { source: "readmodel"; readmodel: ReadModelAsk; explanation: string };

export type PlanOutcome = Plan | { unanswerable: string };

interface Metric {
  re: RegExp;
  table: "income_statements" | "financial_ratios";
  column: string;
  label: string;
  /** Ratios read as fractions; money in the reporting currency. */
  kind: "money" | "ratio" | "number";
}

/** Most specific first: "net income" before "income", "revenue growth" before "revenue". */
const METRICS: Metric[] = [
  {
    re: /\brevenue growth\b|\bsales growth\b/,
    table: "financial_ratios",
    column: "revenue_growth",
    label: "revenue growth",
    kind: "ratio",
  },
  {
    re: /\bearnings per share growth\b|\beps growth\b/,
    table: "financial_ratios",
    column: "earnings_per_share_growth",
    label: "EPS growth",
    kind: "ratio",
  },
  {
    re: /\bearnings growth\b|\bnet income growth\b/,
    table: "financial_ratios",
    column: "earnings_growth",
    label: "earnings growth",
    kind: "ratio",
  },
  {
    re: /\boperating income growth\b/,
    table: "financial_ratios",
    column: "operating_income_growth",
    label: "operating income growth",
    kind: "ratio",
  },
  { re: /\bgross margins?\b/, table: "financial_ratios", column: "gross_margin", label: "gross margin", kind: "ratio" },
  {
    re: /\boperating margins?\b/,
    table: "financial_ratios",
    column: "operating_margin",
    label: "operating margin",
    kind: "ratio",
  },
  {
    re: /\bnet margins?\b|\bprofit margins?\b|\bnet profit margins?\b/,
    table: "financial_ratios",
    column: "net_margin",
    label: "net margin",
    kind: "ratio",
  },
  {
    re: /\breturn on equity\b|\broe\b/,
    table: "financial_ratios",
    column: "return_on_equity",
    label: "return on equity",
    kind: "ratio",
  },
  {
    re: /\breturn on assets\b|\broa\b/,
    table: "financial_ratios",
    column: "return_on_assets",
    label: "return on assets",
    kind: "ratio",
  },
  {
    re: /\breturn on invested capital\b|\broic\b/,
    table: "financial_ratios",
    column: "return_on_invested_capital",
    label: "return on invested capital",
    kind: "ratio",
  },
  {
    re: /\bcurrent ratio\b/,
    table: "financial_ratios",
    column: "current_ratio",
    label: "current ratio",
    kind: "number",
  },
  { re: /\bquick ratio\b/, table: "financial_ratios", column: "quick_ratio", label: "quick ratio", kind: "number" },
  { re: /\bcash ratio\b/, table: "financial_ratios", column: "cash_ratio", label: "cash ratio", kind: "number" },
  {
    re: /\bdebt[- ]to[- ]equity\b/,
    table: "financial_ratios",
    column: "debt_to_equity",
    label: "debt to equity",
    kind: "number",
  },
  {
    re: /\bdebt[- ]to[- ]assets\b/,
    table: "financial_ratios",
    column: "debt_to_assets",
    label: "debt to assets",
    kind: "number",
  },
  {
    re: /\binterest coverage\b/,
    table: "financial_ratios",
    column: "interest_coverage",
    label: "interest coverage",
    kind: "number",
  },
  {
    re: /\basset turnover\b/,
    table: "financial_ratios",
    column: "asset_turnover",
    label: "asset turnover",
    kind: "number",
  },
  {
    re: /\bprice[- ]to[- ]earnings\b|\bp\/e\b|\bpe ratio\b/,
    table: "financial_ratios",
    column: "price_to_earnings_ratio",
    label: "P/E ratio",
    kind: "number",
  },
  {
    re: /\bprice[- ]to[- ]book\b|\bp\/b\b/,
    table: "financial_ratios",
    column: "price_to_book_ratio",
    label: "P/B ratio",
    kind: "number",
  },
  {
    re: /\bprice[- ]to[- ]sales\b|\bp\/s\b/,
    table: "financial_ratios",
    column: "price_to_sales_ratio",
    label: "P/S ratio",
    kind: "number",
  },
  {
    re: /\benterprise value\b/,
    table: "financial_ratios",
    column: "enterprise_value",
    label: "enterprise value",
    kind: "money",
  },
  { re: /\bpayout ratio\b/, table: "financial_ratios", column: "payout_ratio", label: "payout ratio", kind: "ratio" },
  {
    re: /\bbook value per share\b/,
    table: "financial_ratios",
    column: "book_value_per_share",
    label: "book value per share",
    kind: "number",
  },
  {
    re: /\bdiluted (?:eps|earnings per share)\b/,
    table: "income_statements",
    column: "earnings_per_share_diluted",
    label: "diluted EPS",
    kind: "number",
  },
  {
    re: /\beps\b|\bearnings per share\b/,
    table: "income_statements",
    column: "earnings_per_share",
    label: "EPS",
    kind: "number",
  },
  {
    re: /\bgross profits?\b/,
    table: "income_statements",
    column: "gross_profit",
    label: "gross profit",
    kind: "money",
  },
  {
    re: /\boperating income\b|\boperating profits?\b/,
    table: "income_statements",
    column: "operating_income",
    label: "operating income",
    kind: "money",
  },
  {
    re: /\boperating expenses?\b|\bopex\b/,
    table: "income_statements",
    column: "operating_expense",
    label: "operating expense",
    kind: "money",
  },
  {
    re: /\bcost of (?:revenue|sales|goods sold)\b|\bcogs\b/,
    table: "income_statements",
    column: "cost_of_revenue",
    label: "cost of revenue",
    kind: "money",
  },
  {
    re: /\bresearch and development\b|\br&d\b|\br & d\b/,
    table: "income_statements",
    column: "research_and_development",
    label: "R&D expense",
    kind: "money",
  },
  {
    re: /\bsg&a\b|\bselling, general and administrative\b/,
    table: "income_statements",
    column: "selling_general_and_administrative_expenses",
    label: "SG&A",
    kind: "money",
  },
  { re: /\bebit\b/, table: "income_statements", column: "ebit", label: "EBIT", kind: "money" },
  {
    re: /\bnet income\b|\bnet profits?\b|\bnet earnings\b|\bnet loss(?:es)?\b|\bprofits?\b|\bearnings\b/,
    table: "income_statements",
    column: "net_income",
    label: "net income",
    kind: "money",
  },
  {
    re: /\brevenues?\b|\bsales\b|\bturnover\b|\btop line\b/,
    table: "income_statements",
    column: "revenue",
    label: "revenue",
    kind: "money",
  },
];

const MARKET_COLUMNS: { re: RegExp; column: MarketColumn }[] = [
  { re: /\badj(?:usted)?[ _.]?close\b/, column: "adj_close" },
  { re: /\bclos(?:e|es|ing)\b/, column: "close" },
  { re: /\bopen(?:ing)?\b/, column: "open" },
  { re: /\bhighs?\b|\bpeak\b/, column: "high" },
  { re: /\blows?\b|\btrough\b/, column: "low" },
  { re: /\bvolumes?\b|\bshares traded\b/, column: "volume" },
];

const MONTHS = [
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

const STRIP_NAME =
  /\b(inc|incorporated|corp|corporation|co|company|ltd|limited|plc|llc|lp|ag|sa|nv|the|holdings?|group)\b\.?/g;

const sqlStr = (s: string) => `'${s.replaceAll("'", "''")}'`;
const words = (s: string) =>
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
function tickerWords(question: string): string[] {
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

function fiscalPeriod(q: string): Period {
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

function topN(q: string): { n: number; dir: "DESC" | "ASC" } | null {
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

function aggregateWord(q: string): "AVG" | "SUM" | "MEDIAN" | "MIN" | "MAX" | null {
  if (/\b(average|mean|avg)\b/.test(q)) return "AVG";
  if (/\bmedian\b/.test(q)) return "MEDIAN";
  if (/\b(total|sum|combined|aggregate|altogether)\b/.test(q)) return "SUM";
  return null;
}

/** `above $100 billion`, `over 50%`, `below 0`, `negative`: a comparison on the metric. */
function threshold(q: string, kind: Metric["kind"]): { op: ">" | "<"; value: number } | null {
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

function sectorFilter(q: string, ctx: PlanContext): { column: "sector" | "industry"; value: string } | null {
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

function periodWhere(p: Period, alias: string, defaultFy: boolean): string[] {
  const out: string[] = [];
  if (p.years) out.push(`${alias}fiscal_year BETWEEN ${p.years[0]} AND ${p.years[1]}`);
  else if (p.year !== undefined) out.push(`${alias}fiscal_year = ${p.year}`);
  if (p.quarter) out.push(`${alias}fiscal_period = 'Q${p.quarter}'`);
  else if (defaultFy) out.push(`${alias}fiscal_period = 'FY'`);
  return out;
}

function periodText(p: Period): string {
  const base = p.years ? `fiscal ${p.years[0]}–${p.years[1]}` : p.year !== undefined ? `fiscal ${p.year}` : "";
  return p.quarter ? `${base} Q${p.quarter}`.trim() : base ? `${base} (full year)` : "";
}

// ---------------------------------------------------------------- graph shapes

interface GraphShape {
  re: RegExp;
  plan: (entity: { ticker: string; name: string }, count: boolean) => { cypher: string; explanation: string };
}

const ENTITY_WHERE = (v: string) => `(${v}.ticker = $ticker OR toLower(${v}.name) CONTAINS $name)`;

const GRAPH_SHAPES: GraphShape[] = [
  {
    re: /\b(?:subsidiaries|subsidiary|subs)\b(?:\s+(?:of|does|do|for|owned by|has|have))?\s+(.+)$|^(?:what|which) (?:companies|entities) does (.+?) own\b|^(.+?)(?:'s|s') subsidiaries\b/,
    plan: (e, count) => ({
      cypher: count
        ? `MATCH (s:Company)-[:SUBSIDIARY_OF]->(p:Company) WHERE ${ENTITY_WHERE("p")} RETURN p.name AS parent, count(s) AS subsidiaries`
        : `MATCH (s:Company)-[r:SUBSIDIARY_OF]->(p:Company) WHERE ${ENTITY_WHERE("p")} RETURN s.name AS subsidiary, r.jurisdiction AS jurisdiction, p.name AS parent ORDER BY subsidiary`,
      explanation: `Subsidiaries (EX-21 of the 10-K) of the company matching "${e.ticker || e.name}" in the company graph.`,
    }),
  },
  {
    re: /\b(?:who|which (?:funds?|investors?|institutions?|managers?)|funds|investors|institutions) (?:owns?|holds?|has a stake in|invests? in|owned)\s+(?:shares of\s+|stock in\s+)?(.+)$|\b(?:holders|shareholders|owners|institutional holders|investors) (?:of|in)\s+(.+)$/,
    plan: (e, count) => ({
      cypher: count
        ? `MATCH (f:Fund)-[h:HOLDS]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN c.name AS company, count(DISTINCT f) AS funds`
        : `MATCH (f:Fund)-[h:HOLDS]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN f.name AS fund, c.name AS company, h.shares AS shares, h.value AS value, h.period AS period ORDER BY value DESC`,
      explanation: `Funds holding "${e.ticker || e.name}" by their 13F-HR reports (value in USD at the report period), from the company graph.`,
    }),
  },
  {
    re: /\b(?:insiders?|reporting owners?)\b(?:\s+(?:of|at|for))?\s+(.+)$|\bwho (?:are|were) (?:the )?insiders (?:of|at) (.+)$/,
    plan: (e, count) => ({
      cypher: count
        ? `MATCH (p:Person)-[:INSIDER_OF]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN c.name AS company, count(p) AS insiders`
        : `MATCH (p:Person)-[r:INSIDER_OF]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN p.name AS person, r.title AS title, c.name AS company ORDER BY person`,
      explanation: `Insiders of "${e.ticker || e.name}" (reporting owners on Forms 3, 4 and 5), from the company graph.`,
    }),
  },
  {
    re: /\b(?:directors?|board members?|board)\b(?:\s+(?:of|at|for))?\s+(.+)$/,
    plan: (e, count) => ({
      cypher: count
        ? `MATCH (p:Person)-[:DIRECTOR_OF]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN c.name AS company, count(p) AS directors`
        : `MATCH (p:Person)-[r:DIRECTOR_OF]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN p.name AS person, r.title AS title, c.name AS company ORDER BY person`,
      explanation: `Directors of "${e.ticker || e.name}" named in its DEF 14A proxy, from the company graph.`,
    }),
  },
  {
    re: /\b(?:officers?|executives?|management team)\b(?:\s+(?:of|at|for))?\s+(.+)$/,
    plan: (e, count) => ({
      cypher: count
        ? `MATCH (p:Person)-[:OFFICER_OF]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN c.name AS company, count(p) AS officers`
        : `MATCH (p:Person)-[r:OFFICER_OF]->(c:Company) WHERE ${ENTITY_WHERE("c")} RETURN p.name AS person, r.title AS title, c.name AS company ORDER BY person`,
      explanation: `Executive officers of "${e.ticker || e.name}" named in its DEF 14A proxy, from the company graph.`,
    }),
  },
  {
    re: /^(?:what|which (?:companies|stocks)) does (?:the fund )?(.+?) (?:hold|own)\b|\b(?:holdings|portfolio|positions) of (?:the fund )?(.+)$/,
    plan: (e, count) => ({
      cypher: count
        ? `MATCH (f:Fund)-[h:HOLDS]->(c:Company) WHERE toLower(f.name) CONTAINS $name RETURN f.name AS fund, count(DISTINCT c) AS holdings, sum(h.value) AS value`
        : `MATCH (f:Fund)-[h:HOLDS]->(c:Company) WHERE toLower(f.name) CONTAINS $name RETURN c.name AS company, c.ticker AS ticker, h.shares AS shares, h.value AS value, h.period AS period ORDER BY value DESC`,
      explanation: `Holdings of the fund matching "${e.name}" from its 13F-HR report, from the company graph.`,
    }),
  },
];

function planGraph(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
  const count = /^how many\b|\bnumber of\b|\bcount\b/.test(q);
  // A fund's holdings before "who owns" (both mention owning).
  const ordered = [GRAPH_SHAPES[5], ...GRAPH_SHAPES.slice(0, 5)] as GraphShape[];
  for (const shape of ordered) {
    const m = shape.re.exec(q);
    if (!m) continue;
    let phrase = (m.slice(1).find((x) => x !== undefined) ?? "").trim();
    phrase = phrase
      .replace(/\b(have|has|had|own|owns|hold|holds|in total|according to.*|as of.*|listed|reported)\b.*$/, "")
      .replace(/[?.!]+$/, "")
      .replace(/^(?:(?:does|do|did|has|have|is|are|was|were|of|at|for|in)\s+)+/, "")
      .replace(/^(the|a|an)\s+/, "")
      .trim();
    if (!phrase) continue;
    if (!ctx.graph)
      return { unanswerable: "This question needs the company graph, and the tenant has no graph engine." };
    // A company the tenant knows by ticker or name: match by its ticker too.
    const known = findCompanies(question, ctx.companies)[0];
    const tickers = tickerWords(question);
    const ticker = known?.ticker ?? tickers.find((t) => phrase.toUpperCase().split(/\s+/).includes(t)) ?? "";
    const name = words(phrase.replace(STRIP_NAME, " ").replace(/(?:'s|s')$/, ""));
    if (!name && !ticker) continue;
    const fundShape = shape === GRAPH_SHAPES[5];
    const entity = { ticker: fundShape ? "" : ticker, name: name || ticker.toLowerCase() };
    const { cypher, explanation } = shape.plan(entity, count);
    return { source: "graph", cypher, params: fundShape ? { name: entity.name } : entity, explanation };
  }
  return null;
}

// ---------------------------------------------------------------- read-model shapes

function planReadModel(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
  const own = /\b(my|our)\b.*\b(portfolios?|watchlists?)\b/.test(q);
  const named = /\b(portfolio|watchlist)s?\s+(named|called)\b|\b(portfolio|watchlist)\s+["']/.test(
    question.toLowerCase(),
  );
  const watch = /\bwatchlists?\b/.test(q);
  const quote = /\b(latest|current|last|newest)\s+(quote|bid|ask)\b|\bbid and ask\b|\bquotes? (for|of)\b/.test(q);
  if (!own && !named && !watch && !quote) return null;
  if (!ctx.readModels)
    return { unanswerable: "This question needs the read models (portfolios, quotes), and they are not configured." };
  const known = findCompanies(question, ctx.companies)[0];
  const ticker = known?.ticker ?? tickerWords(question)[0];
  if (quote) {
    if (!ticker) return null;
    return {
      source: "readmodel",
      readmodel: { kind: "quote", ticker },
      explanation: `The newest quote of ${ticker} from the tenant's market_quotes (read model md.latest_quotes).`,
    };
  }
  if (
    /\b(which|what)\b.*\b(portfolios|watchlists)\b.*\b(hold|holds|own|owns|contain|contains|include|includes|have)\b/.test(
      q,
    ) &&
    ticker
  ) {
    return {
      source: "readmodel",
      readmodel: { kind: "holders", ticker },
      explanation: `The tenant's portfolios and watchlists that hold ${ticker} (read model pm.holdings).`,
    };
  }
  const quoted = /["“']([^"”']{1,200})["”']/.exec(question)?.[1];
  const m =
    /\b(?:portfolio|watchlist)\s+(?:named|called)\s+(.+)$/.exec(q) ??
    /\b(?:in|of|inside)\s+(?:my|our|the)\s+(.+?)\s+(?:portfolio|watchlist)\b/.exec(q) ??
    /\b(?:my|our|the)\s+(?:portfolio|watchlist)\s+(.+)$/.exec(q);
  const name = (quoted ?? m?.[1] ?? "").replace(/[?.!]+$/, "").trim();
  if (name && !/^(portfolios?|watchlists?)$/.test(name)) {
    return {
      source: "readmodel",
      readmodel: { kind: "holdings", name: name.toLowerCase() },
      explanation: `The holdings of the tenant's portfolio or watchlist named like "${name}" (read model pm.holdings).`,
    };
  }
  const of =
    /\bwatchlists?\b/.test(q) && !/\bportfolios?\b/.test(q)
      ? "watchlist"
      : /\bportfolios?\b/.test(q) && !watch
        ? "portfolio"
        : null;
  return {
    source: "readmodel",
    readmodel: { kind: "portfolios", of },
    explanation: `The tenant's ${of ? `${of}s` : "portfolios and watchlists"} (read model pm.portfolios).`,
  };
}

// ---------------------------------------------------------------- market shapes

function marketRange(q: string): MarketWindow["range"] | null {
  const iso = [...q.matchAll(/\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b/g)].map((m) => m[0]);
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  if (iso.length >= 2 && /\b(between|from)\b/.test(q)) {
    const [a, b] = [iso[0], iso[1]].sort() as [string, string];
    return { from: a, to: next(b) };
  }
  if (iso.length === 1) return { from: iso[0] as string, to: next(iso[0] as string) };
  const last = /\b(?:last|past|final|trailing)\s+(\d{1,4})\s+(trading days|days|weeks|months|years)\b/.exec(q);
  if (last) {
    const n = Number(last[1]);
    const unit = last[2] as string;
    const days = unit.startsWith("week")
      ? n * 7
      : unit.startsWith("month")
        ? n * 30
        : unit.startsWith("year")
          ? n * 365
          : n;
    return { lastDays: Math.min(days, 36_600) };
  }
  const month = new RegExp(`\\b(${MONTHS.join("|")})\\s+(?:of\\s+)?((?:19|20)\\d{2})\\b`).exec(q);
  if (month) {
    const mi = MONTHS.indexOf(month[1] as string);
    const y = Number(month[2]);
    const from = new Date(Date.UTC(y, mi, 1)).toISOString().slice(0, 10);
    const to = new Date(Date.UTC(y, mi + 1, 1)).toISOString().slice(0, 10);
    return { from, to };
  }
  const years = /\b(?:from|between)\s+((?:19|20)\d{2})\s+(?:to|and|through|-)\s+((?:19|20)\d{2})\b/.exec(q);
  if (years) {
    const [a, b] = [Number(years[1]), Number(years[2])].sort((x, y) => x - y) as [number, number];
    return { from: `${a}-01-01`, to: `${b + 1}-01-01` };
  }
  const quarter = /\bq([1-4])\s+(?:of\s+)?((?:19|20)\d{2})\b/.exec(q);
  if (quarter) {
    const qi = Number(quarter[1]) - 1;
    const y = Number(quarter[2]);
    return {
      from: new Date(Date.UTC(y, qi * 3, 1)).toISOString().slice(0, 10),
      to: new Date(Date.UTC(y, qi * 3 + 3, 1)).toISOString().slice(0, 10),
    };
  }
  const year = /\b((?:19|20)\d{2})\b/.exec(q);
  if (year) return { from: `${year[1]}-01-01`, to: `${Number(year[1]) + 1}-01-01` };
  return null;
}

function marketAgg(q: string, column: MarketColumn, single: boolean): Agg {
  if (/\b(return|change|performance|gain|loss|grow|grew|rise|rose|fall|fell)\b/.test(q) && column === "close")
    return "change";
  if (/\b(average|mean|avg)\b/.test(q)) return "avg";
  if (/\b(total|sum|combined)\b/.test(q)) return "sum";
  if (/\bhow many (trading )?days\b|\bnumber of (trading )?days\b|\bhow many bars\b/.test(q)) return "count";
  if (/\b(highest|maximum|max|peak|top|all-time high)\b/.test(q)) return "max";
  if (/\b(lowest|minimum|min|bottom)\b/.test(q)) return "min";
  if (/\b(first|opening day|start)\b/.test(q)) return "first";
  if (/\b(last|latest|final|most recent)\b/.test(q)) return "last";
  return single ? "last" : "rows";
}

function planMarket(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
  const col = MARKET_COLUMNS.find((c) => c.re.test(q));
  const marketWords = /\b(stock|share|price|prices|trading|traded|bars?|quote|market|index)\b/.test(q);
  if (!col && !marketWords) return null;
  const known = findCompanies(question, ctx.companies)[0];
  const sp = /\bs&p ?500\b|\bsp500\b/.test(q) ? "SP500_INDEX" : null;
  const symbol = sp ?? tickerWords(question)[0] ?? known?.ticker;
  if (!symbol) return null;
  const range = marketRange(q);
  if (!range) return null;
  const column = col?.column ?? "close";
  const single = "from" in range && Date.parse(range.to) - Date.parse(range.from) <= 86_400_000;
  const agg = marketAgg(q, column, single);
  if (!ctx.timeseries && !ctx.tables.has("market_daily")) {
    return { unanswerable: "This question needs market data, and the tenant has no daily bars." };
  }
  const when = "lastDays" in range ? `the last ${range.lastDays} days of the data` : `[${range.from}, ${range.to})`;
  const what =
    agg === "rows"
      ? `daily ${column}`
      : agg === "change"
        ? "the change of the close (last vs first bar)"
        : agg === "count"
          ? "the number of daily bars"
          : `${agg} of ${column}`;
  return {
    source: "timeseries",
    market: { symbol, column, agg, range },
    explanation: `${what[0]?.toUpperCase()}${what.slice(1)} for ${symbol} over ${when}, from the tenant's daily market bars.`,
  };
}

// ---------------------------------------------------------------- lakehouse shapes

function planFilings(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
  if (!/\b(filings?|filed|10-k|10-q|8-k|form [0-9a-z-]+|proxy|def 14a)\b/.test(q) || !ctx.tables.has("filings"))
    return null;
  const form = /\b(10-k|10-q|8-k|s-1|def 14a|20-f|6-k|4|3|13f-hr|sc 13g|sc 13d)\b/.exec(q)?.[1]?.toUpperCase() ?? null;
  const formWhere = form ? `form = ${sqlStr(form)}` : null;
  const companies = findCompanies(question, ctx.companies);
  const c = companies[0];
  const year = /\b((?:19|20)\d{2})\b/.exec(q)?.[1];
  const where = [
    ...(c ? [`cik = ${sqlStr(c.cik)}`] : []),
    ...(formWhere ? [formWhere] : []),
    ...(year ? [`filed_at >= DATE '${year}-01-01' AND filed_at < DATE '${Number(year) + 1}-01-01'`] : []),
  ];
  const w = where.length ? ` WHERE ${where.join(" AND ")}` : "";
  const who = c ? `${c.name}${c.ticker ? ` (${c.ticker})` : ""}` : "all companies";
  const what = form ? `${form} filings` : "filings";
  const during = year ? ` filed in ${year}` : "";
  if (/\b(latest|most recent|last|newest)\b/.test(q)) {
    return {
      source: "lakehouse",
      sql: `SELECT ticker, form, filed_at, period, accession_number FROM filings${w} ORDER BY filed_at DESC, accession_number DESC LIMIT 1`,
      explanation: `The most recent of the ${what} of ${who}${during}.`,
    };
  }
  if (/\b(first|earliest|oldest)\b/.test(q)) {
    return {
      source: "lakehouse",
      sql: `SELECT ticker, form, filed_at, period, accession_number FROM filings${w} ORDER BY filed_at ASC, accession_number ASC LIMIT 1`,
      explanation: `The earliest of the ${what} of ${who}${during}.`,
    };
  }
  if (/^how many\b|\bnumber of\b|\bcount\b/.test(q)) {
    if (!c && /\b(which|what) (company|companies)\b|\bmost\b/.test(q)) {
      return {
        source: "lakehouse",
        sql: `SELECT ticker, count(*) AS filings FROM filings${w}${w ? " AND" : " WHERE"} ticker IS NOT NULL GROUP BY ticker ORDER BY filings DESC, ticker LIMIT 10`,
        explanation: `Companies by the number of ${what}${during}.`,
      };
    }
    return {
      source: "lakehouse",
      sql: `SELECT count(*) AS filings FROM filings${w}`,
      explanation: `The number of ${what} of ${who}${during}.`,
    };
  }
  if (!c && /\b(which|what) (company|companies)\b.*\bmost\b/.test(q)) {
    return {
      source: "lakehouse",
      sql: `SELECT ticker, count(*) AS filings FROM filings${w}${w ? " AND" : " WHERE"} ticker IS NOT NULL GROUP BY ticker ORDER BY filings DESC, ticker LIMIT 10`,
      explanation: `Companies by the number of ${what}${during}.`,
    };
  }
  if (c || form) {
    return {
      source: "lakehouse",
      sql: `SELECT ticker, form, filed_at, period, accession_number FROM filings${w} ORDER BY filed_at DESC, accession_number DESC`,
      explanation: `The ${what} of ${who}${during}, newest first.`,
    };
  }
  return null;
}

function planNews(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
  if (!/\b(news|articles?|headlines?|mentions?|mentioned|sentiment|stories)\b/.test(q)) return null;
  if (!ctx.tables.has("news_mentions")) return null;
  const c = findCompanies(question, ctx.companies)[0];
  const ticker = c?.ticker ?? tickerWords(question)[0];
  const label = /\b(bullish|bearish|neutral)\b/.exec(q)?.[1];
  const where = [
    ...(ticker ? [`ticker = ${sqlStr(ticker)}`] : []),
    ...(label ? [`sentiment_label = ${sqlStr(label)}`] : []),
  ];
  const w = where.length ? ` WHERE ${where.join(" AND ")}` : "";
  const about = ticker ? ` mentioning ${ticker}` : "";
  const kind = label ? `${label} ` : "";
  if (/\b(average|mean|avg)\b.*\bsentiment\b|\bsentiment\b.*\b(average|mean|avg)\b/.test(q)) {
    return {
      source: "lakehouse",
      sql: `SELECT avg(sentiment_score) AS avg_sentiment, count(*) AS articles FROM news_mentions${w}`,
      explanation: `The mean sentiment score (-1..1) of the ${kind}news articles${about}.`,
    };
  }
  if (
    !ticker &&
    /\b(which|what) (companies|tickers|stocks|company|ticker|stock)\b|\bmost (mentioned|covered)\b|\btop\b/.test(q)
  ) {
    const n = topN(q)?.n ?? 5;
    return {
      source: "lakehouse",
      sql: `SELECT ticker, count(*) AS articles FROM news_mentions${w} GROUP BY ticker ORDER BY articles DESC, ticker LIMIT ${Math.max(n, 1)}`,
      explanation: `Tickers by the number of ${kind}news articles that mention them.`,
    };
  }
  if (/^how many\b|\bnumber of\b|\bcount\b/.test(q)) {
    return {
      source: "lakehouse",
      sql:
        ticker || label
          ? `SELECT count(*) AS articles FROM news_mentions${w}`
          : "SELECT count(*) AS articles FROM news",
      explanation: `The number of ${kind}news articles${about}.`,
    };
  }
  if (ticker) {
    return {
      source: "lakehouse",
      sql: `SELECT n.published_at, n.title, n.source_name, n.sentiment_label FROM news n JOIN news_mentions m ON n.article_id = m.article_id WHERE m.ticker = ${sqlStr(ticker)}${label ? ` AND n.sentiment_label = ${sqlStr(label)}` : ""} ORDER BY n.published_at DESC LIMIT 20`,
      explanation: `The newest ${kind}news articles${about}.`,
    };
  }
  return null;
}

function planCompanyFacts(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
  if (!ctx.tables.has("companies")) return null;
  const companies = findCompanies(question, ctx.companies);
  const c = companies[0];
  if (c && /\b(what|which) (sector|industry)\b|\b(sector|industry|sic)\b.*\b(is|of|for|does)\b/.test(q)) {
    return {
      source: "lakehouse",
      sql: `SELECT ticker, name, sector, industry, sic FROM companies WHERE cik = ${sqlStr(c.cik)}`,
      explanation: `The SIC sector and industry of ${c.name}.`,
    };
  }
  if (c && /\b(state of incorporation|incorporated|fiscal year end|exchange|listed)\b/.test(q)) {
    return {
      source: "lakehouse",
      sql: `SELECT ticker, name, state_of_incorporation, fiscal_year_end, exchange FROM companies WHERE cik = ${sqlStr(c.cik)}`,
      explanation: `Registration facts of ${c.name} from its SEC submissions.`,
    };
  }
  const f = sectorFilter(q, ctx);
  if (f && !METRICS.some((m) => m.re.test(q)) && /\b(companies|company|firms|which|how many|list)\b/.test(q)) {
    const where = `${f.column} = ${sqlStr(f.value)}`;
    if (/^how many\b|\bnumber of\b|\bcount\b/.test(q)) {
      return {
        source: "lakehouse",
        sql: `SELECT count(*) AS companies FROM companies WHERE ${where}`,
        explanation: `The number of companies whose ${f.column} is ${f.value}.`,
      };
    }
    return {
      source: "lakehouse",
      sql: `SELECT ticker, name FROM companies WHERE ${where} ORDER BY name`,
      explanation: `Companies whose ${f.column} is ${f.value}.`,
    };
  }
  if (/^how many companies\b|\bnumber of companies\b/.test(q) && !METRICS.some((m) => m.re.test(q))) {
    return {
      source: "lakehouse",
      sql: "SELECT count(*) AS companies FROM companies",
      explanation: "The number of companies in the tenant's data.",
    };
  }
  return null;
}

function planMetric(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
  const metric = METRICS.find((m) => m.re.test(q));
  if (!metric || !ctx.tables.has(metric.table)) return null;
  const p = fiscalPeriod(q);
  const companies = findCompanies(question, ctx.companies);
  const t = metric.table;
  const col = metric.column;
  const when = periodText(p);
  const fyNote = p.quarter ? "" : " Fiscal years are the company's own (fiscal_period FY).";
  if (companies.length > 0) {
    const list = companies.map((c) => sqlStr(c.cik)).join(", ");
    const who = companies.map((c) => c.ticker ?? c.name).join(", ");
    const where = [`cik IN (${list})`, ...periodWhere(p, "", true)];
    if (companies.length === 1 && p.year === undefined && !p.years) {
      const all = /\b(each year|every year|by year|per year|history|over time|trend|all years|annual)\b/.test(q);
      return {
        source: "lakehouse",
        sql: `SELECT ticker, fiscal_year, fiscal_period, period_end, ${col} FROM ${t} WHERE ${where.join(" AND ")} AND ${col} IS NOT NULL ORDER BY fiscal_year DESC${all ? "" : " LIMIT 1"}`,
        explanation: all
          ? `${metric.label} of ${who} for every fiscal year, newest first.${fyNote}`
          : `${metric.label} of ${who} for its latest fiscal year with a value.${fyNote}`,
      };
    }
    const order = companies.length > 1 && !p.years ? `${col} DESC` : "ticker, fiscal_year";
    return {
      source: "lakehouse",
      sql: `SELECT ticker, fiscal_year, fiscal_period, period_end, ${col} FROM ${t} WHERE ${where.join(" AND ")} ORDER BY ${order}`,
      explanation: `${metric.label} of ${who} for ${when || "every period"}.${fyNote}`,
    };
  }
  // No company: top-N, a filter, or an aggregate over companies.
  const sector = sectorFilter(q, ctx);
  const join = sector ? ` JOIN companies c ON c.cik = m.cik` : "";
  const where = [
    ...periodWhere(p, "m.", true),
    `m.${col} IS NOT NULL`,
    ...(sector ? [`c.${sector.column} = ${sqlStr(sector.value)}`] : []),
  ];
  const scope = `${sector ? ` in ${sector.value}` : ""}${when ? `, ${when}` : ""}`;
  const agg = aggregateWord(q);
  const cmp = threshold(q, metric.kind);
  if (p.year === undefined && !p.years) {
    return { unanswerable: `Which fiscal year? Name one (e.g. "in 2023") for the ${metric.label} across companies.` };
  }
  if (agg) {
    const fn = agg === "MEDIAN" ? "median" : agg.toLowerCase();
    return {
      source: "lakehouse",
      sql: `SELECT ${fn}(m.${col}) AS ${fn}_${col}, count(*) AS companies FROM ${t} m${join} WHERE ${[...where, ...(cmp ? [`m.${col} ${cmp.op} ${cmp.value}`] : [])].join(" AND ")}`,
      explanation: `The ${fn} ${metric.label} over companies${scope}.`,
    };
  }
  if (cmp) {
    const w = [...where, `m.${col} ${cmp.op} ${cmp.value}`].join(" AND ");
    if (/^how many\b|\bnumber of\b|\bcount\b/.test(q)) {
      return {
        source: "lakehouse",
        sql: `SELECT count(*) AS companies FROM ${t} m${join} WHERE ${w}`,
        explanation: `The number of companies with ${metric.label} ${cmp.op} ${cmp.value}${scope}.`,
      };
    }
    return {
      source: "lakehouse",
      sql: `SELECT m.ticker, m.fiscal_year, m.${col} FROM ${t} m${join} WHERE ${w} ORDER BY m.${col} DESC`,
      explanation: `Companies with ${metric.label} ${cmp.op} ${cmp.value}${scope}.`,
    };
  }
  const top = topN(q);
  if (top) {
    return {
      source: "lakehouse",
      sql: `SELECT m.ticker, m.fiscal_year, m.${col} FROM ${t} m${join} WHERE ${where.join(" AND ")} ORDER BY m.${col} ${top.dir}, m.ticker LIMIT ${top.n}`,
      explanation: `The ${top.n === 1 ? "company" : `${top.n} companies`} with the ${top.dir === "DESC" ? "highest" : "lowest"} ${metric.label}${scope}.`,
    };
  }
  if (/^how many\b|\bnumber of\b/.test(q)) {
    return {
      source: "lakehouse",
      sql: `SELECT count(*) AS companies FROM ${t} m${join} WHERE ${where.join(" AND ")}`,
      explanation: `The number of companies reporting ${metric.label}${scope}.`,
    };
  }
  return {
    source: "lakehouse",
    sql: `SELECT m.ticker, m.fiscal_year, m.${col} FROM ${t} m${join} WHERE ${where.join(" AND ")} ORDER BY m.${col} DESC, m.ticker`,
    explanation: `${metric.label} of every company${scope}, largest first.`,
  };
}

/** Plans the question, or says why not. */
export function planQuestion(question: string, ctx: PlanContext): PlanOutcome {
  const q = question.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, " ").trim();
  const own = planReadModel(question, q, ctx);
  if (own) return own;
  const graph = planGraph(question, q, ctx);
  if (graph) return graph;
  const filings = planFilings(question, q, ctx);
  if (filings) return filings;
  const news = planNews(question, q, ctx);
  if (news) return news;
  // Market data before metrics: "NVDA closing price in 2010" names no financial metric.
  const metricNamed = METRICS.some((m) => m.re.test(q));
  const market = metricNamed ? null : planMarket(question, q, ctx);
  if (market) return market;
  const facts = planCompanyFacts(question, q, ctx);
  if (facts) return facts;
  const metric = planMetric(question, q, ctx);
  if (metric) return metric;
  return {
    unanswerable:
      "I could not map this question to the tenant's data. The rules planner answers: a metric for a company and " +
      'period ("Apple revenue in FY2023"), top-N by a metric ("top 5 companies by net income in 2023"), a filter ' +
      'or aggregate ("average gross margin of Manufacturing companies in 2023"), a time window over market data ' +
      '("average NVDA close in 2013"), filings and news counts, and the company graph ("subsidiaries of Tesla", ' +
      '"who owns Apple").',
  };
}
