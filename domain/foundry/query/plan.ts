/**
 * The deterministic planner (docs/foundry-query.md "Shapes"): a question in English to one
 * read-only statement over the tenant's data, or a plain "cannot answer". No model, no
 * randomness: the same question over the same tables gives the same statement.
 *
 * Nothing the caller wrote reaches a statement as text: companies are matched against the
 * tenant's `companies` table (ticker or name) and written as the stored cik or ticker;
 * metrics, forms, sectors and labels come from fixed lists or the stored values; numbers are
 * parsed and re-rendered; free text (a graph company name) is passed as a parameter.
 *
 * This file holds the lakehouse shapes (filings, news, company facts, metrics) and the order in
 * which shapes are tried; plan-shapes.ts the graph, read-model and market shapes; words.ts and
 * metrics.ts the vocabulary; plan-types.ts the inputs and plans.
 */
import { METRICS } from "./metrics.ts";
import { planGraph, planMarket, planReadModel } from "./plan-shapes.ts";
import type { PlanContext, PlanOutcome } from "./plan-types.ts";
import {
  aggregateWord,
  findCompanies,
  fiscalPeriod,
  periodText,
  periodWhere,
  sectorFilter,
  sqlStr,
  threshold,
  tickerWords,
  topN,
} from "./words.ts";

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
