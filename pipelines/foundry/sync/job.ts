/**
 * The Foundry sync job: writes the tenant's view of the financial data the service holds
 * as Iceberg tables in the tenant's lakehouse namespace (svc_tenant_{slug}), so datasets
 * can join them (docs/foundry-tables.md lists the tables and columns).
 *
 * - Each table is one `overwrite` write: one atomic Iceberg commit that replaces the whole
 *   table, so a reader sees the old rows or the new ones, never a mix. The rows of one
 *   table are gathered in memory first (one table at a time), because overwrite-then-append
 *   in batches would show a half-written table between commits. Memory is bounded by
 *   reading the stores page by page (a company at a time, news a page at a time, market
 *   bars a time window at a time) and by `maxRowsPerTable`: a financial or market table
 *   past it fails with payload_too_large (never a silently partial copy); news keeps the
 *   newest-ingested `maxNewsArticles` (default `maxRowsPerTable`) articles and says so (`cairn.sync.truncated`).
 * - Idempotent: rows are sorted by the table's key and fingerprinted; when the current
 *   snapshot already carries that fingerprint nothing is committed, so a rerun over
 *   unchanged data changes nothing (not even the snapshot).
 * - A table whose source is empty is still created, with its columns and 0 rows.
 * - Snapshot properties: `cairn.source` = `sync`, `cairn.synced_at` (ISO instant),
 *   `cairn.sync.fingerprint`, `cairn.sync.rows`, and `cairn.sync.truncated` when cut.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../../../domain/errors.ts";
import type { FoundrySyncDeps, MarketBarsSource } from "../../../domain/foundry/sync-ports.ts";
import type { LakehousePort } from "../../../domain/lakehouse/ports.ts";
import type { TimeRange } from "../../../domain/rtdb/tiering.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import { parseMarketCsv } from "../../rtdb/market-ingest.ts";
import {
  COLUMNS,
  cikKey,
  companyRow,
  type DailyBar,
  dateOf,
  type FoundryTable,
  filingRow,
  incomeRow,
  marketRow,
  mentionRows,
  newsRow,
  ratioRow,
  segmentRows,
  sortRows,
  tickerKey,
} from "./tables.ts";

export const SOURCE_PROPERTY = "cairn.source";
export const SYNCED_AT_PROPERTY = "cairn.synced_at";
export const FINGERPRINT_PROPERTY = "cairn.sync.fingerprint";
export const DEFAULT_MAX_ROWS_PER_TABLE = 250_000;
export const DEFAULT_NEWS_PAGE = 1_000;
/** Most market bars one time-series read returns; a fuller window is split in two. */
export const DEFAULT_MARKET_PAGE = 50_000;
/** The market-data range read: from this instant to a day past now, in windows of MARKET_WINDOW_YEARS. */
const MARKET_FROM = "1900-01-01T00:00:00Z";
const MARKET_WINDOW_YEARS = 10;

export interface FoundrySyncOptions {
  /** Daily-bar CSVs (the shared data's market/daily) used when the tenant has no `market_bars_daily` table. */
  marketDir?: string | null;
  maxRowsPerTable?: number;
  /** Most articles in `news` (the newest ingested); default maxRowsPerTable. */
  maxNewsArticles?: number;
  newsPageSize?: number;
  marketPageSize?: number;
  now?: () => Date;
}

export interface SyncedTable {
  name: FoundryTable;
  rows: number;
  /** False when the table already held exactly these rows (nothing committed). */
  changed: boolean;
  snapshot_id: string | null;
  truncated?: boolean;
}

export interface FoundrySyncResult {
  namespace: string;
  synced_at: string;
  market_source: "rtdb" | "csv" | "none";
  tables: SyncedTable[];
}

/** Writes every Foundry table into the tenant's namespace; see the file comment. */
export async function syncFinancialTables(
  deps: FoundrySyncDeps,
  tenant: TenantRef,
  opts: FoundrySyncOptions = {},
): Promise<FoundrySyncResult> {
  const lake = deps.lakehouse;
  if (!lake) throw new AppError("unavailable", "No lakehouse gateway is configured (CAIRN_LAKEHOUSE_URL)");
  const ns = lakehouseNamespace(tenant.slug);
  const ensured = await lake.ensureNamespace(tenant);
  // Checked, not assumed: the job never writes outside the tenant's own namespace.
  if (ensured !== ns) throw new AppError("internal", `lakehouse namespace ${ensured} is not the tenant's ${ns}`);
  const max = opts.maxRowsPerTable ?? DEFAULT_MAX_ROWS_PER_TABLE;
  const syncedAt = (opts.now?.() ?? new Date()).toISOString();
  const out: FoundrySyncResult = { namespace: ns, synced_at: syncedAt, market_source: "none", tables: [] };
  const write = async (table: FoundryTable, rows: unknown[][], truncated = false) => {
    const t = await writeTable(lake, ns, table, rows, syncedAt, truncated);
    deps.logger?.info({ tenant: tenant.slug, ...t }, "foundry sync table");
    out.tables.push(t);
  };
  const fin = deps.financials;
  const ciks = [...new Set((await fin.listCiks()).map((c) => cikKey(c)).filter((c): c is string => c !== null))].sort();

  // companies, and the ticker -> CIK map the news and market tables join through
  const cikOfTicker = new Map<string, string>();
  const tickerOfCik = new Map<string, string | null>();
  {
    const rows = new Rows("companies", max);
    for (const cik of ciks) {
      const c = await fin.company(cik);
      if (!c) continue;
      const row = companyRow({ ...c, cik });
      rows.push(row);
      tickerOfCik.set(cik, row[1] as string | null);
      for (const t of [row[1], ...String(row[3] ?? "").split(",")]) {
        const k = tickerKey(t as string | null);
        // A ticker two companies claim goes to the lower CIK (ciks are ascending), so the map is stable.
        if (k && !cikOfTicker.has(k)) cikOfTicker.set(k, cik);
      }
    }
    await write("companies", rows.rows);
  }
  {
    const rows = new Rows("income_statements", max);
    for (const cik of ciks) for (const r of await fin.income(cik)) rows.push(incomeRow(cik, r));
    await write("income_statements", rows.rows);
  }
  {
    const rows = new Rows("financial_ratios", max);
    for (const cik of ciks) for (const r of await fin.ratios(cik)) rows.push(ratioRow(cik, r));
    await write("financial_ratios", rows.rows);
  }
  {
    const rows = new Rows("revenue_segments", max);
    for (const cik of ciks) for (const r of await fin.revenueSegments(cik)) rows.push(...segmentRows(cik, r));
    await write("revenue_segments", rows.rows);
  }
  {
    const rows = new Rows("filings", max);
    for (const cik of ciks) {
      for (const f of await fin.filings(cik)) rows.push(filingRow(cik, tickerOfCik.get(cik) ?? null, f));
    }
    await write("filings", rows.rows);
  }
  {
    const news = new Rows("news", max);
    const mentions = new Rows("news_mentions", max);
    const page = opts.newsPageSize ?? DEFAULT_NEWS_PAGE;
    const maxNews = Math.min(opts.maxNewsArticles ?? max, max);
    let after: number | undefined;
    let truncated = false;
    for (;;) {
      const res = await deps.news.list({ limit: page, ...(after !== undefined ? { after } : {}) });
      for (const a of res.articles) {
        const ms = mentionRows(a, cikOfTicker);
        // Newest ingested first: past the cap, the older articles are the ones left out.
        if (news.rows.length >= maxNews || mentions.rows.length + ms.length > max) {
          truncated = true;
          break;
        }
        news.push(newsRow(a));
        mentions.push(...ms);
      }
      if (truncated || res.next === null) break;
      after = res.next;
    }
    await write("news", news.rows, truncated);
    await write("news_mentions", mentions.rows, truncated);
  }
  {
    const rows = new Rows("market_daily", max);
    const hasRtdb = deps.market !== null && (await deps.market.hasDailyBars(tenant));
    if (deps.market && hasRtdb) {
      out.market_source = "rtdb";
      const to = new Date(Date.parse(syncedAt) + 86_400_000).toISOString();
      await readBars(deps.market, tenant, { from: MARKET_FROM, to }, opts.marketPageSize ?? DEFAULT_MARKET_PAGE, (b) =>
        rows.push(marketRow(b, cikOfTicker)),
      );
    } else if (opts.marketDir) {
      out.market_source = "csv";
      for (const b of csvBars(opts.marketDir)) rows.push(marketRow(b, cikOfTicker));
    }
    await write("market_daily", rows.rows);
  }
  return out;
}

/** A table's rows being gathered, refused past the cap. */
class Rows {
  readonly rows: unknown[][] = [];
  constructor(
    private readonly table: FoundryTable,
    private readonly max: number,
  ) {}
  push(...rows: unknown[][]): void {
    if (this.rows.length + rows.length > this.max) {
      throw new AppError(
        "payload_too_large",
        `${this.table} has more than ${this.max} rows: one overwrite commit holds a whole table, ` +
          "and this sync is limited to that many rows per table (raise maxRowsPerTable)",
      );
    }
    this.rows.push(...rows);
  }
}

function fingerprint(table: FoundryTable, rows: unknown[][]): string {
  const h = createHash("sha256");
  h.update(JSON.stringify(COLUMNS[table]));
  for (const r of rows) h.update(`\n${JSON.stringify(r)}`);
  return h.digest("hex");
}

async function writeTable(
  lake: LakehousePort,
  ns: string,
  table: FoundryTable,
  rows: unknown[][],
  syncedAt: string,
  truncated: boolean,
): Promise<SyncedTable> {
  sortRows(table, rows);
  const fp = fingerprint(table, rows);
  const current = await lake.snapshotProperties(ns, table);
  const base = { name: table, rows: rows.length, ...(truncated ? { truncated } : {}) };
  if (current?.[FINGERPRINT_PROPERTY] === fp && current[SOURCE_PROPERTY] === "sync") {
    return { ...base, changed: false, snapshot_id: null };
  }
  const res = await lake.write(ns, table, {
    mode: "overwrite",
    columns: COLUMNS[table],
    rows,
    snapshot_properties: {
      [SOURCE_PROPERTY]: "sync",
      [SYNCED_AT_PROPERTY]: syncedAt,
      [FINGERPRINT_PROPERTY]: fp,
      "cairn.sync.rows": String(rows.length),
      ...(truncated ? { "cairn.sync.truncated": "true" } : {}),
    },
  });
  return { ...base, changed: true, snapshot_id: res.snapshot_id === null ? null : String(res.snapshot_id) };
}

/** Reads [from, to) in windows of MARKET_WINDOW_YEARS, halving a window that holds more than `limit` bars. */
async function readBars(
  market: MarketBarsSource,
  tenant: TenantRef,
  range: TimeRange,
  limit: number,
  emit: (b: DailyBar) => void,
): Promise<void> {
  const windows: TimeRange[] = [];
  const end = Date.parse(range.to);
  for (let y = new Date(range.from).getUTCFullYear(); ; y += MARKET_WINDOW_YEARS) {
    const from = Date.UTC(y, 0, 1);
    if (from >= end) break;
    const to = Math.min(Date.UTC(y + MARKET_WINDOW_YEARS, 0, 1), end);
    windows.push({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  }
  const read = async (w: TimeRange): Promise<void> => {
    let res: Awaited<ReturnType<MarketBarsSource["readDailyBars"]>>;
    try {
      res = await market.readDailyBars(tenant, w, limit);
    } catch (err) {
      const [a, b] = [Date.parse(w.from), Date.parse(w.to)];
      if (!(err instanceof AppError && err.code === "payload_too_large") || b - a <= 86_400_000) throw err;
      const mid = new Date(a + Math.floor((b - a) / 2)).toISOString();
      await read({ from: w.from, to: mid });
      await read({ from: mid, to: w.to });
      return;
    }
    const at = (name: string) => res.columns.indexOf(name);
    const [sym, ts, open, high, low, close, adj, vol] = [
      "symbol",
      "ts",
      "open",
      "high",
      "low",
      "close",
      "adj_close",
      "volume",
    ].map(at) as number[];
    const n = (v: unknown) => (v === null || v === undefined || v === "" ? null : Number(v));
    for (const r of res.rows) {
      const ticker = tickerKey(r[sym as number] as string | null);
      const date = dateOf(r[ts as number] as string | null);
      if (!ticker || !date) continue;
      const volume = vol !== undefined && vol >= 0 ? r[vol] : null;
      emit({
        ticker,
        date,
        open: n(r[open as number]),
        high: n(r[high as number]),
        low: n(r[low as number]),
        close: n(r[close as number]),
        adj_close: adj !== undefined && adj >= 0 ? n(r[adj]) : null,
        volume: volume === null || volume === undefined ? null : (volume as number | string),
      });
    }
  };
  for (const w of windows) await read(w);
}

/** Daily bars from the CSV files under `dir` whose layout is a daily-bars one (pipelines/rtdb/market-ingest.ts). */
function* csvBars(dir: string): Generator<DailyBar> {
  const files = (d: string): string[] =>
    readdirSync(d)
      .sort()
      .flatMap((e) => {
        const p = join(d, e);
        return statSync(p).isDirectory() ? files(p) : p.toLowerCase().endsWith(".csv") ? [p] : [];
      });
  for (const path of files(dir)) {
    const parsed = parseMarketCsv(path, readFileSync(path, "utf8"));
    if (parsed?.table !== "market_bars_daily") continue;
    for (const r of parsed.rows) {
      const ticker = tickerKey(String(r.symbol));
      const date = dateOf(String(r.ts));
      if (!ticker || !date) continue;
      const num = (v: unknown) => (typeof v === "number" ? v : null);
      yield {
        ticker,
        date,
        open: num(r.open),
        high: num(r.high),
        low: num(r.low),
        close: num(r.close),
        adj_close: num(r.adj_close),
        volume: num(r.volume),
      };
    }
  }
}
