/**
 * Wires the Foundry sync job (pipelines/foundry/sync/) to the stores the service already
 * has: the SQL financials store (companies, statements, ratios, segments, and its filings
 * index), the news store over the control plane, the tenant's real-time tables (daily bars,
 * hot and tiered) and the lakehouse gateway.
 *
 * - In the service: `openFoundrySync({ financials: service.financials, store: service.store,
 *   lakehouse: service.engines.lakehouse, rtdb: service.deps.rtdb })`.
 * - In an operator command: `openFoundrySyncStandalone(config, store)` opens the same engines
 *   itself (the embedded DuckDB file is locked while the service runs: stop it first).
 */
import { SqlTieringStateStore } from "../adapters/controlplane/index.ts";
import { SqlFinancialsStore } from "../adapters/financials/store.ts";
import { GatewayLakehouse } from "../adapters/lakehouse/index.ts";
import { SqlNewsStore } from "../adapters/news/index.ts";
import type { Config } from "../config.ts";
import { AppError } from "../domain/errors.ts";
import type { FilingRow } from "../domain/financials/fields.ts";
import type { FinancialsStore } from "../domain/financials/ports.ts";
import type {
  FinancialTablesSource,
  FoundrySyncDeps,
  FoundrySyncLogger,
  MarketBarsSource,
} from "../domain/foundry/sync-ports.ts";
import type { LakehousePort } from "../domain/lakehouse/ports.ts";
import type { ControlPlaneStore, SqlClient } from "../domain/ports.ts";
import { RtdbService } from "../domain/rtdb/service.ts";
import type { TenantRef } from "../domain/tenants/namespaces.ts";
import {
  type FoundrySyncOptions,
  type FoundrySyncResult,
  syncFinancialTables,
} from "../pipelines/foundry/sync/index.ts";
import { TieredTableReader } from "../pipelines/rtdb/tiering/reader.ts";
import { openFinancials, openObjectStore, openTimeSeries, realtimeEngine } from "./engines.ts";

/** Reads return every stored row of one company (the per-company row counts are small). */
const ALL = { limit: 1_000_000 };
const DAILY_BARS = "market_bars_daily";

export interface FoundrySync {
  deps: FoundrySyncDeps;
  sync(tenant: TenantRef, opts?: FoundrySyncOptions): Promise<FoundrySyncResult>;
}

export function openFoundrySync(d: {
  financials: FinancialsStore;
  /** The control plane: news lives in its database. */
  store: ControlPlaneStore;
  lakehouse: LakehousePort | null;
  /** The rtdb service (hot and tiered reads); null or absent: market bars come only from a CSV directory. */
  rtdb?: Pick<RtdbService, "tableSpec" | "read"> | null;
  /** The SQL database of the financials store; defaults to the SqlFinancialsStore's own. */
  financialsSql?: SqlClient;
  logger?: FoundrySyncLogger;
}): FoundrySync {
  const sql = d.financialsSql ?? (d.financials instanceof SqlFinancialsStore ? d.financials.sql : null);
  if (!sql) throw new AppError("internal", "the Foundry sync needs the financials store's SQL database");
  const deps: FoundrySyncDeps = {
    financials: financialTables(d.financials, sql),
    news: new SqlNewsStore(d.store.sql),
    market: d.rtdb ? marketBars(d.rtdb) : null,
    lakehouse: d.lakehouse,
    ...(d.logger ? { logger: d.logger } : {}),
  };
  return { deps, sync: (tenant, opts) => syncFinancialTables(deps, tenant, opts) };
}

/** The same, opening the financials store, the time-series engine and the gateway from the config; close() after. */
export async function openFoundrySyncStandalone(
  config: Config,
  store: ControlPlaneStore,
): Promise<FoundrySync & { close(): Promise<void> }> {
  const financials = await openFinancials(config, store);
  const ts = openTimeSeries(config);
  const engine = realtimeEngine(ts);
  const rtdb = engine
    ? new RtdbService({
        tables: engine,
        tiering: new TieredTableReader({
          engine,
          state: new SqlTieringStateStore(store.sql),
          objects: openObjectStore(config),
        }),
      })
    : null;
  const lakehouse = config.lakehouse
    ? new GatewayLakehouse({ url: config.lakehouse.url, token: config.lakehouse.token })
    : null;
  const sync = openFoundrySync({ financials: financials.store, store, lakehouse, rtdb });
  return {
    ...sync,
    close: async () => {
      await ts.close();
      await financials.close();
    },
  };
}

function financialTables(store: FinancialsStore, sql: SqlClient): FinancialTablesSource {
  return {
    listCiks: () => store.listCiks(),
    company: async (cik) => {
      const c = await store.company(cik);
      if (!c) return null;
      const { facts: _facts, ...profile } = c;
      return profile;
    },
    income: (cik) => store.income(cik, ALL),
    ratios: (cik) => store.ratios(cik, ALL),
    revenueSegments: (cik) => store.revenueSegments(cik, ALL),
    // The store's port has no filings listing yet (only findFiling); read its table directly.
    filings: (cik) =>
      sql.all<FilingRow>(
        `SELECT accession_number, form, filing_date, report_date, primary_document
           FROM fin_filings WHERE cik = ? ORDER BY accession_number`,
        [cik],
      ),
  };
}

function marketBars(rtdb: Pick<RtdbService, "tableSpec" | "read">): MarketBarsSource {
  return {
    hasDailyBars: async (t) => {
      try {
        await rtdb.tableSpec(t, DAILY_BARS);
        return true;
      } catch (err) {
        if (err instanceof AppError && (err.code === "not_found" || err.code === "unavailable")) return false;
        throw err;
      }
    },
    readDailyBars: (t, range, limit) => rtdb.read(t, DAILY_BARS, range, limit),
  };
}
