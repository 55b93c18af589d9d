/**
 * Time-series answers (docs/foundry-query.md): a planned window over the tenant's real-time
 * `market_bars_daily` (hot and tiered rows, read by range and aggregated here), the statement it
 * reports, and the same window as SQL over the synced lakehouse copy (`market_daily`).
 */
import { AppError } from "../../errors.ts";
import type { RealtimeTablesPort, RealtimeTieringView, TieringStateStore } from "../../rtdb/ports.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import { MARKET_TABLE, MAX_WINDOW_ROWS, type QueryAnswer, unanswered } from "./answer.ts";
import type { MarketWindow } from "./plan-types.ts";

/** What a time-series answer reads: the real-time tables, their tiered view and tiering state. */
export interface MarketReader {
  tables: Pick<RealtimeTablesPort, "ready" | "get" | "partitions">;
  view: Pick<RealtimeTieringView, "read">;
  state: Pick<TieringStateStore, "parts">;
}

export async function answerMarket(
  rt: MarketReader,
  maxRows: number,
  t: TenantRef,
  question: string,
  m: MarketWindow,
  explanation: string,
  planner: "llm" | "rules",
): Promise<QueryAnswer> {
  if (!/^[A-Z0-9][A-Z0-9._]{0,31}$/.test(m.symbol)) {
    throw AppError.validation([
      { loc: ["symbol"], msg: "not a symbol", type: "value_error", input: m.symbol, ctx: {} },
    ]);
  }
  let range: { from: string; to: string };
  if ("lastDays" in m.range) {
    const newest = await newestBar(rt, t, m.symbol);
    if (newest === null) return unanswered(question, `No ${m.symbol} bars in the tenant's market data.`, planner);
    range = {
      from: new Date(newest - m.range.lastDays * 86_400_000 + 1).toISOString(),
      to: new Date(newest + 1).toISOString(),
    };
  } else {
    range = { from: `${m.range.from}T00:00:00.000Z`, to: `${m.range.to}T00:00:00.000Z` };
  }
  const read = await rt.view.read(t, MARKET_TABLE, range, MAX_WINDOW_ROWS + 1);
  if (read.rows.length > MAX_WINDOW_ROWS) {
    throw AppError.validation([
      {
        loc: ["window"],
        msg: `the window holds more than ${MAX_WINDOW_ROWS} bars: shorten it`,
        type: "value_error",
        input: range,
        ctx: { max_rows: MAX_WINDOW_ROWS },
      },
    ]);
  }
  const si = read.columns.indexOf("symbol");
  const ti = read.columns.indexOf("ts");
  const vi = read.columns.indexOf(m.column);
  const bars = read.rows
    .filter((r) => String(r[si]).toUpperCase() === m.symbol)
    .sort((a, b) => String(a[ti]).localeCompare(String(b[ti])));
  const sql = marketStatement(m, range);
  const base = { question, answered: true, source: "timeseries" as const, sql, explanation, planner };
  if (bars.length === 0) {
    return unanswered(question, `No ${m.symbol} bars in the tenant's market data for that window.`, planner, {
      source: "timeseries",
      sql,
    });
  }
  const day = (r: unknown[]) => String(r[ti]).slice(0, 10);
  if (m.agg === "rows") {
    const cols = ["date", "open", "high", "low", "close", "volume"];
    const idx = cols.map((c) => (c === "date" ? ti : read.columns.indexOf(c)));
    const rows = bars.map((r) => idx.map((i) => (i === ti ? day(r) : (r[i] ?? null))));
    const truncated = rows.length > maxRows;
    return { ...base, columns: cols, rows: truncated ? rows.slice(0, maxRows) : rows, truncated };
  }
  const values = bars
    .map((r) => r[vi])
    .filter((v) => v !== null && v !== undefined)
    .map(Number);
  const first = bars[0] as unknown[];
  const last = bars[bars.length - 1] as unknown[];
  if (m.agg === "change") {
    const a = Number(first[vi]);
    const b = Number(last[vi]);
    return {
      ...base,
      columns: ["symbol", "first_date", "first_close", "last_date", "last_close", "change", "change_pct"],
      rows: [[m.symbol, day(first), a, day(last), b, b - a, a !== 0 ? ((b - a) / a) * 100 : null]],
      truncated: false,
    };
  }
  let value: number | null;
  switch (m.agg) {
    case "avg":
      value = values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
      break;
    case "sum":
      value = values.reduce((s, v) => s + v, 0);
      break;
    case "min":
      value = values.length ? Math.min(...values) : null;
      break;
    case "max":
      value = values.length ? Math.max(...values) : null;
      break;
    case "count":
      value = bars.length;
      break;
    case "first":
      value = values[0] ?? null;
      break;
    default:
      value = values[values.length - 1] ?? null;
  }
  const name = m.agg === "count" ? "trading_days" : `${m.agg}_${m.column}`;
  const at =
    m.agg === "min" || m.agg === "max"
      ? day(bars.find((r) => Number(r[vi]) === value) as unknown[])
      : m.agg === "first"
        ? day(first)
        : m.agg === "last"
          ? day(last)
          : null;
  return {
    ...base,
    columns: ["symbol", name, "date", "from", "to", "bars"],
    rows: [[m.symbol, value, at, day(first), day(last), bars.length]],
    truncated: false,
  };
}

/**
 * Epoch ms of the symbol's newest daily bar, hot or tiered; null when there is none. The
 * table's upper bound comes from its partitions and tiered parts; the symbol's last bar is
 * then found by reading back a year at a time (at most 50 years).
 */
async function newestBar(rt: MarketReader, t: TenantRef, symbol: string): Promise<number | null> {
  let end: number | null = null;
  const bump = (iso: string) => {
    const ms = Date.parse(iso);
    if (Number.isFinite(ms) && (end === null || ms > end)) end = ms;
  };
  for (const p of await rt.tables.partitions(t, MARKET_TABLE)) bump(p.to);
  for (const p of await rt.state.parts(t.tenantId, MARKET_TABLE)) if (p.state !== "pending") bump(p.to);
  if (end === null) return null;
  const YEAR = 366 * 86_400_000;
  for (let k = 0; k < 50; k++) {
    const to = (end as number) + 1 - k * YEAR;
    const read = await rt.view.read(
      t,
      MARKET_TABLE,
      { from: new Date(to - YEAR).toISOString(), to: new Date(to).toISOString() },
      MAX_WINDOW_ROWS + 1,
    );
    const si = read.columns.indexOf("symbol");
    const ti = read.columns.indexOf("ts");
    let newest: number | null = null;
    for (const r of read.rows) {
      if (String(r[si]).toUpperCase() !== symbol) continue;
      const ms = Date.parse(String(r[ti]));
      if (Number.isFinite(ms) && (newest === null || ms > newest)) newest = ms;
    }
    if (newest !== null) return newest;
  }
  return null;
}

const AGG_SQL: Record<string, string> = {
  avg: "avg",
  min: "min",
  max: "max",
  sum: "sum",
  first: "first",
  last: "last",
};

/** The statement a time-series answer reports: what the range read computed, in QuestDB SQL. */
function marketStatement(m: MarketWindow, range: { from: string; to: string }): string {
  const where = `symbol = '${m.symbol}' AND ts >= '${range.from}' AND ts < '${range.to}'`;
  if (m.agg === "rows")
    return `SELECT ts, open, high, low, close, volume FROM ${MARKET_TABLE} WHERE ${where} ORDER BY ts`;
  if (m.agg === "count") return `SELECT count() AS bars FROM ${MARKET_TABLE} WHERE ${where}`;
  if (m.agg === "change") return `SELECT first(close), last(close) FROM ${MARKET_TABLE} WHERE ${where}`;
  return `SELECT ${AGG_SQL[m.agg]}(${m.column}) FROM ${MARKET_TABLE} WHERE ${where}`;
}

/** The same window over the synced lakehouse copy (market_daily, DuckDB SQL). */
export function marketSql(m: MarketWindow): string {
  const sym = `ticker = '${m.symbol.replaceAll("'", "''")}'`;
  const window =
    "lastDays" in m.range
      ? `date > (SELECT max(date) FROM market_daily WHERE ${sym}) - INTERVAL ${m.range.lastDays} DAY`
      : `date >= DATE '${m.range.from}' AND date < DATE '${m.range.to}'`;
  const where = `${sym} AND ${window}`;
  const c = m.column;
  switch (m.agg) {
    case "rows":
      return `SELECT date, open, high, low, close, volume FROM market_daily WHERE ${where} ORDER BY date`;
    case "count":
      return `SELECT count(*) AS bars FROM market_daily WHERE ${where}`;
    case "change":
      return `SELECT arg_min(close, date) AS first_close, arg_max(close, date) AS last_close, (arg_max(close, date) - arg_min(close, date)) / arg_min(close, date) * 100 AS change_pct FROM market_daily WHERE ${where}`;
    case "first":
      return `SELECT arg_min(${c}, date) AS first_${c} FROM market_daily WHERE ${where}`;
    case "last":
      return `SELECT arg_max(${c}, date) AS last_${c} FROM market_daily WHERE ${where}`;
    default:
      return `SELECT ${m.agg}(${c}) AS ${m.agg}_${c}, count(*) AS bars FROM market_daily WHERE ${where}`;
  }
}
