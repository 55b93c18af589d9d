/**
 * Loads market data CSVs (the shared data's market/: daily and intraday bars, ticks, quotes,
 * monthly prices) into a tenant's real-time tables through RealtimeTablesPort.ingest, so the
 * same code writes ILP to QuestDB or appends to the embedded DuckDB engine. Reports rows and
 * rows/s per table.
 *
 * Tables (created IF NOT EXISTS):
 *   market_bars_daily     symbol, open, high, low, close, adj_close, volume, ts      PARTITION BY MONTH
 *   market_bars_intraday  symbol, bar ('1m'|'5m'|'tick'), open .. close, volume,
 *                         open_interest, ts                                         PARTITION BY DAY
 *   market_quotes         symbol, bid, ask, ts                                      PARTITION BY DAY
 *   market_prices_monthly symbol, price, ts                                         PARTITION BY MONTH
 * A file's layout is recognised by its header; the symbol is the file name up to its first
 * date, year or `_daily`/`_ticks`/`_sample` part (`NVDA_1999-2014_daily.csv` -> NVDA). Times
 * without a zone are taken as UTC; US-style `MM/DD/YYYY` dates are month first. A table that
 * already holds rows is skipped (a rerun does not duplicate) unless `force`. A table's rows are
 * sent in timestamp order across its files, so QuestDB appends rather than merging out of order.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { normaliseDdl, parseCreateTable, type RealtimeTablesPort, type Row } from "../../domain/rtdb/index.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";

export const MARKET_TABLES = {
  market_bars_daily:
    "CREATE TABLE IF NOT EXISTS market_bars_daily (symbol SYMBOL CAPACITY 256 CACHE INDEX, open DOUBLE, " +
    "high DOUBLE, low DOUBLE, close DOUBLE, adj_close DOUBLE, volume LONG, ts TIMESTAMP) " +
    "TIMESTAMP(ts) PARTITION BY MONTH WAL",
  market_bars_intraday:
    "CREATE TABLE IF NOT EXISTS market_bars_intraday (symbol SYMBOL CAPACITY 256 CACHE INDEX, bar SYMBOL, " +
    "open DOUBLE, high DOUBLE, low DOUBLE, close DOUBLE, volume LONG, open_interest LONG, ts TIMESTAMP) " +
    "TIMESTAMP(ts) PARTITION BY DAY WAL",
  market_quotes:
    "CREATE TABLE IF NOT EXISTS market_quotes (symbol SYMBOL, bid DOUBLE, ask DOUBLE, ts TIMESTAMP) " +
    "TIMESTAMP(ts) PARTITION BY DAY WAL",
  market_prices_monthly:
    "CREATE TABLE IF NOT EXISTS market_prices_monthly (symbol SYMBOL, price DOUBLE, ts TIMESTAMP) " +
    "TIMESTAMP(ts) PARTITION BY MONTH WAL",
} as const;
export type MarketTable = keyof typeof MARKET_TABLES;

export interface ParsedMarketFile {
  file: string;
  table: MarketTable;
  symbol: string;
  rows: Row[];
}

export interface MarketIngestReport {
  tenant: string;
  rows: number;
  seconds: number;
  rows_per_s: number;
  tables: { table: MarketTable; files: number; rows: number; seconds: number; rows_per_s: number; skipped?: string }[];
  files: { file: string; table: MarketTable | null; symbol: string | null; rows: number; skipped?: string }[];
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** The symbol a file's name stands for: `SP500_index_2000-2020_daily.csv` -> SP500_INDEX. */
export function symbolOf(file: string): string {
  const stem = basename(file).replace(/\.[^.]+$/, "");
  return stem.replace(/_(\d.*|daily.*|ticks.*|sample.*)$/i, "").toUpperCase();
}

function num(text: string | undefined, what: string): number {
  const v = Number(text);
  if (text === undefined || text.trim() === "" || !Number.isFinite(v))
    throw new Error(`${what}: '${text}' is not a number`);
  return v;
}

function int(text: string | undefined, what: string): number {
  const v = num(text, what);
  return Math.round(v);
}

/** `MM/DD/YYYY HH:MM:SS` (US order) as ISO UTC. */
function usDateTime(text: string): string {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) throw new Error(`'${text}' is not MM/DD/YYYY HH:MM:SS`);
  const [, mo, d, y, h, mi, s = "00"] = m;
  return `${y}-${mo!.padStart(2, "0")}-${d!.padStart(2, "0")}T${h}:${mi}:${s}Z`;
}

/** `Jan 1 2000` as ISO UTC. */
function monthDayYear(text: string): string {
  const m = /^([A-Za-z]{3})[a-z]*\s+(\d{1,2}),?\s+(\d{4})$/.exec(text.trim());
  const month = m ? MONTHS.indexOf(m[1]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`'${text}' is not a 'Mon D YYYY' date`);
  return `${m[3]}-${String(month + 1).padStart(2, "0")}-${m[2]!.padStart(2, "0")}T00:00:00Z`;
}

/** Parses one CSV file of a known layout; null when the layout is not one of them. */
export function parseMarketCsv(file: string, text: string): ParsedMarketFile | null {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = (lines[0] ?? "").split(",").map((h) => h.trim().toLowerCase().replace(/\s+/g, "_"));
  const symbol = symbolOf(file);
  const name = basename(file).toLowerCase();
  const rows: Row[] = [];
  const h = header.join(",");
  let table: MarketTable;
  let parse: (f: string[]) => Row;
  if (h === "date,open,high,low,close,adj_close,volume" || h === "date,open,high,low,close,adjclose,volume") {
    table = "market_bars_daily";
    parse = (f) => ({
      symbol,
      open: num(f[1], "open"),
      high: num(f[2], "high"),
      low: num(f[3], "low"),
      close: num(f[4], "close"),
      adj_close: num(f[5], "adj close"),
      volume: int(f[6], "volume"),
      ts: `${f[0]}T00:00:00Z`,
    });
  } else if (h === "date,open,high,low,close,volume,openinterest" && !/min|tick/.test(name)) {
    table = "market_bars_daily";
    parse = (f) => ({
      symbol,
      open: num(f[1], "open"),
      high: num(f[2], "high"),
      low: num(f[3], "low"),
      close: num(f[4], "close"),
      volume: int(f[5], "volume"),
      ts: `${f[0]}T00:00:00Z`,
    });
  } else if (/^(date,time|date|datetime),open,high,low,close,volume,openinterest$/.test(h)) {
    table = "market_bars_intraday";
    const bar = /(\d+)min/.exec(name)?.[1] ? `${/(\d+)min/.exec(name)?.[1]}m` : "tick";
    // The 1-minute file's header has no Time column although every row has one.
    const dateTime = h.startsWith("datetime,")
      ? (f: string[]) => ({ ts: f[0]!.endsWith("Z") ? f[0]! : `${f[0]}Z`, at: 1 })
      : (f: string[]) => ({ ts: `${f[0]}T${f[1]}Z`, at: 2 });
    parse = (f) => {
      const { ts, at } = dateTime(f);
      return {
        symbol,
        bar,
        open: num(f[at], "open"),
        high: num(f[at + 1], "high"),
        low: num(f[at + 2], "low"),
        close: num(f[at + 3], "close"),
        volume: int(f[at + 4], "volume"),
        open_interest: int(f[at + 5], "open interest"),
        ts,
      };
    };
  } else if (h === "timestamp,bid,ask") {
    table = "market_quotes";
    parse = (f) => ({ symbol, bid: num(f[1], "bid"), ask: num(f[2], "ask"), ts: usDateTime(f[0]!) });
  } else if (h === "symbol,date,price") {
    table = "market_prices_monthly";
    parse = (f) => ({ symbol: f[0]!.trim(), price: num(f[2], "price"), ts: monthDayYear(f[1]!) });
  } else {
    return null;
  }
  for (let i = 1; i < lines.length; i++) {
    try {
      rows.push(parse(lines[i]!.split(",")));
    } catch (err) {
      throw new Error(`${basename(file)} line ${i + 1}: ${(err as Error).message}`);
    }
  }
  return { file, table, symbol, rows };
}

function csvFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...csvFiles(path));
    else out.push(path);
  }
  return out;
}

export async function ingestMarketDirectory(
  port: RealtimeTablesPort,
  tenant: TenantRef,
  dir: string,
  opts: { force?: boolean } = {},
): Promise<MarketIngestReport> {
  const report: MarketIngestReport = {
    tenant: tenant.slug,
    rows: 0,
    seconds: 0,
    rows_per_s: 0,
    tables: [],
    files: [],
  };
  const byTable = new Map<MarketTable, ParsedMarketFile[]>();
  for (const path of csvFiles(dir)) {
    const file = relative(dir, path);
    if (!path.toLowerCase().endsWith(".csv")) {
      report.files.push({ file, table: null, symbol: null, rows: 0, skipped: "not a CSV file" });
      continue;
    }
    const parsed = parseMarketCsv(path, readFileSync(path, "utf8"));
    if (!parsed) {
      report.files.push({ file, table: null, symbol: null, rows: 0, skipped: "unrecognised header" });
      continue;
    }
    report.files.push({ file, table: parsed.table, symbol: parsed.symbol, rows: parsed.rows.length });
    byTable.set(parsed.table, [...(byTable.get(parsed.table) ?? []), parsed]);
  }
  const started = performance.now();
  for (const [table, files] of byTable) {
    const spec = parseCreateTable(MARKET_TABLES[table]);
    await port.create(tenant, spec, normaliseDdl(spec));
    if (!opts.force && (await port.partitions(tenant, table)).length > 0) {
      const skipped = "already holds rows (use --force to append again)";
      report.tables.push({ table, files: files.length, rows: 0, seconds: 0, rows_per_s: 0, skipped });
      continue;
    }
    const t0 = performance.now();
    // One stream in timestamp order across the table's files: QuestDB then appends instead of
    // merging out-of-order rows into every partition the files share.
    const all = files.flatMap((f) => f.rows.map((row) => ({ row, at: Date.parse(String(row.ts)) })));
    all.sort((x, y) => x.at - y.at);
    const { rows } = await port.ingest(
      tenant,
      table,
      all.map((x) => x.row),
    );
    const seconds = (performance.now() - t0) / 1000;
    report.tables.push({
      table,
      files: files.length,
      rows,
      seconds: round(seconds),
      rows_per_s: Math.round(rows / seconds),
    });
    report.rows += rows;
  }
  report.seconds = round((performance.now() - started) / 1000);
  report.rows_per_s = report.seconds > 0 ? Math.round(report.rows / report.seconds) : 0;
  return report;
}

function round(s: number): number {
  return Math.round(s * 1000) / 1000;
}
