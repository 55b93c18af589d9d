/** Question shapes over the company graph, the read models (pm.*, md.*) and the daily market bars. */
import type { Agg, MarketColumn, MarketWindow, PlanContext, PlanOutcome } from "./plan-types.ts";
import { findCompanies, MARKET_COLUMNS, MONTHS, STRIP_NAME, tickerWords, words } from "./words.ts";

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

export function planGraph(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
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

export function planReadModel(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
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

export function planMarket(question: string, q: string, ctx: PlanContext): PlanOutcome | null {
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
