/**
 * The read-model refresh (spec 1.9): materialises ci.* (once per installation: public
 * data) and dm.*, md.* (per tenant, every row with tenant_id) from the existing stores,
 * each table replaced whole in one transaction, so a reader sees the old rows or the new,
 * never a mix. pm.* is the portfolios model itself and is never refreshed. A rerun over
 * unchanged sources writes the same rows. Row shapes follow the Foundry sync's tables
 * (pipelines/foundry/sync/tables.ts) so the two agree column for column.
 */
import { AppError } from "../../../domain/errors.ts";
import { type ReadModelSchema, readModelName } from "../../../domain/foundry/readmodels/catalogue.ts";
import type {
  ReadModelSources,
  ReadModelWriter,
  RealtimeSource,
  RefreshedTable,
} from "../../../domain/foundry/readmodels/ports.ts";
import type { JobHandler, JsonValue } from "../../../domain/ports.ts";
import type { TimeRange } from "../../../domain/rtdb/tiering.ts";
import type { TenantRef } from "../../../domain/tenants/namespaces.ts";
import {
  companyRow,
  type DailyBar,
  dateOf,
  incomeRow,
  marketRow,
  ratioRow,
  segmentRows,
  tickerKey,
} from "../sync/tables.ts";

export interface RefreshDeps {
  sources: ReadModelSources;
  writer: ReadModelWriter;
  /** ticker -> CIK, for md.* (read from ci.companies after its refresh). */
  cikOfTicker(): Promise<ReadonlyMap<string, string>>;
  now?: () => Date;
}

const DAILY_BARS = "market_bars_daily";
const QUOTES = "market_quotes";
const MARKET_FROM = "1900-01-01T00:00:00Z";
const WINDOW_YEARS = 10;
const PAGE = 50_000;

/** ci.*: every company with ingested data. */
export async function refreshPublic(deps: RefreshDeps): Promise<RefreshedTable[]> {
  const fin = deps.sources.financials;
  const names = ["companies", "income_statements", "ratios", "segments"];
  if (!fin) return names.map((t) => ({ table: `ci.${t}`, rows: 0, status: "skipped" }));
  const rows: Record<string, unknown[][]> = { companies: [], income_statements: [], ratios: [], segments: [] };
  for (const cik of await fin.listCiks()) {
    const c = await fin.company(cik);
    if (c) rows.companies?.push(companyRow(c));
    for (const r of await fin.income(cik))
      if (r.fiscal_year !== null && r.fiscal_period_code) rows.income_statements?.push(incomeRow(cik, r));
    for (const r of await fin.ratios(cik))
      if (r.fiscal_year !== null && r.fiscal_period) rows.ratios?.push(ratioRow(cik, r));
    for (const r of await fin.revenueSegments(cik)) rows.segments?.push(...segmentRows(cik, r));
  }
  const out: RefreshedTable[] = [];
  for (const t of names) out.push(await write(deps, "ci", t, null, rows[t] ?? []));
  return out;
}

/** dm.* and md.* of one tenant. */
export async function refreshTenant(deps: RefreshDeps, t: TenantRef): Promise<RefreshedTable[]> {
  const out: RefreshedTable[] = [];
  const { documents, editor, realtime } = deps.sources;
  const skip = (name: string): RefreshedTable => ({ table: name, rows: 0, status: "skipped" });

  if (documents && (await documents.ready(t))) {
    // Tenant-wide documents only: a read model has no per-document ACL, so anything
    // narrower (deal_private, team_only, behind a barrier) is kept out of it.
    const docs = (await documents.documents(t)).filter((d) => d.visibility === "tenant_wide" && d.barrier_id === null);
    const chunks = await documents.chunks(t);
    const shown = new Set(docs.map((d) => d.doc_id));
    const kept = chunks.filter((c) => shown.has(c.doc_id));
    const count = new Map<string, number>();
    for (const c of kept) count.set(c.doc_id, (count.get(c.doc_id) ?? 0) + 1);
    out.push(
      await write(
        deps,
        "dm",
        "documents",
        t.tenantId,
        docs.map((d) => [
          d.doc_id,
          d.filename,
          d.format,
          d.doc_type,
          d.entity_id,
          d.uploaded_by,
          d.uploaded_at,
          count.get(d.doc_id) ?? 0,
        ]),
      ),
    );
    out.push(
      await write(
        deps,
        "dm",
        "chunks",
        t.tenantId,
        kept.map((c) => [
          c.chunk_id,
          c.doc_id,
          c.chunk_index,
          c.page,
          c.char_count,
          c.doc_type,
          c.entity_id,
          c.created_at,
        ]),
      ),
    );
  } else {
    out.push(skip("dm.documents"), skip("dm.chunks"));
  }

  if (editor) {
    const docs = (await editor.documents(t.tenantId)).filter((d) => d.general_access !== "none");
    out.push(
      await write(
        deps,
        "dm",
        "editor_documents",
        t.tenantId,
        docs.map((d) => [d.doc_id, d.title, d.owner_id, d.general_access, d.version, d.created_at, d.updated_at]),
      ),
    );
  } else {
    out.push(skip("dm.editor_documents"));
  }

  const now = deps.now?.() ?? new Date();
  const to = new Date(now.getTime() + 86_400_000).toISOString();
  const ciks = realtime ? await deps.cikOfTicker() : new Map<string, string>();
  if (realtime && (await realtime.has(t, DAILY_BARS))) {
    const bars = new Map<string, unknown[]>();
    await readAll(realtime, t, DAILY_BARS, { from: MARKET_FROM, to }, (get) => {
      const b = dailyBar(get);
      // One row per (ticker, date): a later read of the same day replaces an earlier one.
      if (b) bars.set(`${b.ticker}|${b.date}`, marketRow(b, ciks));
    });
    out.push(await write(deps, "md", "daily_bars", t.tenantId, [...bars.values()]));
  } else {
    out.push(skip("md.daily_bars"));
  }
  if (realtime && (await realtime.has(t, QUOTES))) {
    const latest = new Map<string, { at: string; row: unknown[] }>();
    await readAll(realtime, t, QUOTES, { from: MARKET_FROM, to }, (get) => {
      const ticker = tickerKey(get("symbol") as string | null);
      const at = get("ts") as string | null;
      if (!ticker || !at) return;
      const prev = latest.get(ticker);
      if (prev && prev.at >= at) return;
      const bid = num(get("bid"));
      const ask = num(get("ask"));
      const mid = bid !== null && ask !== null ? (bid + ask) / 2 : null;
      latest.set(ticker, { at, row: [ticker, ciks.get(ticker) ?? null, bid, ask, mid, at] });
    });
    out.push(
      await write(
        deps,
        "md",
        "latest_quotes",
        t.tenantId,
        [...latest.values()].map((v) => v.row),
      ),
    );
  } else {
    out.push(skip("md.latest_quotes"));
  }
  return out;
}

async function write(
  deps: RefreshDeps,
  schema: ReadModelSchema,
  table: string,
  tenantId: string | null,
  rows: unknown[][],
): Promise<RefreshedTable> {
  const n = await deps.writer.replace(schema, table, tenantId, rows);
  const name = readModelName({ schema, table });
  await deps.writer.markRefreshed(name, tenantId, n, (deps.now?.() ?? new Date()).toISOString());
  return { table: name, rows: n, status: "refreshed" };
}

const num = (v: unknown) => (v === null || v === undefined || v === "" ? null : Number(v));

function dailyBar(get: (c: string) => unknown): DailyBar | null {
  const ticker = tickerKey(get("symbol") as string | null);
  const date = dateOf(get("ts") as string | null);
  if (!ticker || !date) return null;
  const vol = get("volume");
  return {
    ticker,
    date,
    open: num(get("open")),
    high: num(get("high")),
    low: num(get("low")),
    close: num(get("close")),
    adj_close: num(get("adj_close")),
    volume: vol === null || vol === undefined ? null : (vol as number | string),
  };
}

/** Reads [from, to) in windows of WINDOW_YEARS, halving a window that holds more than PAGE rows. */
async function readAll(
  src: RealtimeSource,
  t: TenantRef,
  table: string,
  range: TimeRange,
  emit: (get: (column: string) => unknown) => void,
): Promise<void> {
  const end = Date.parse(range.to);
  const windows: TimeRange[] = [];
  for (let y = new Date(range.from).getUTCFullYear(); ; y += WINDOW_YEARS) {
    const from = Date.UTC(y, 0, 1);
    if (from >= end) break;
    const to = Math.min(Date.UTC(y + WINDOW_YEARS, 0, 1), end);
    windows.push({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  }
  const read = async (w: TimeRange): Promise<void> => {
    let res: Awaited<ReturnType<RealtimeSource["read"]>>;
    try {
      res = await src.read(t, table, w, PAGE);
    } catch (err) {
      const [a, b] = [Date.parse(w.from), Date.parse(w.to)];
      if (!(err instanceof AppError && err.code === "payload_too_large") || b - a <= 60_000) throw err;
      const mid = new Date(a + Math.floor((b - a) / 2)).toISOString();
      await read({ from: w.from, to: mid });
      await read({ from: mid, to: w.to });
      return;
    }
    const at = new Map(res.columns.map((c, i) => [c, i]));
    for (const r of res.rows) {
      emit((c) => {
        const i = at.get(c);
        return i === undefined ? null : r[i];
      });
    }
  };
  for (const w of windows) await read(w);
}

/** The job: `{scope: "public"}` refreshes ci.*, `{tenant_id, slug}` the tenant's dm.* and md.*. */
export function makeRefreshHandler(deps: RefreshDeps): JobHandler {
  return async (job) => {
    const d = (job.data ?? {}) as { scope?: string; tenant_id?: string; slug?: string };
    const tables =
      d.scope === "public"
        ? await refreshPublic(deps)
        : d.tenant_id && d.slug
          ? await refreshTenant(deps, { tenantId: d.tenant_id, slug: d.slug })
          : null;
    if (!tables) throw new AppError("bad_request", "a refresh job names a tenant or the public scope");
    return { tables: tables as unknown as JsonValue };
  };
}
