/**
 * Test fixture for the tiering suites: a data directory with the real engines the embedded
 * profile runs (DuckDB time-series file, SQLite control plane, local object store), and a
 * loader for the shared market data's daily bars. Used in-process and by the crash child.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SqlControlPlaneStore, SqlTieringStateStore, TIERING_MIGRATIONS } from "../adapters/controlplane/index.ts";
import { DuckDbParquetInspector, LocalObjectStore } from "../adapters/objectstore/index.ts";
import { SqliteClient } from "../adapters/sql/index.ts";
import { DuckDbTimeSeries } from "../adapters/timeseries/index.ts";
import type { TenantRef } from "../domain/namespaces.ts";
import { normaliseDdl, parseCreateTable, type RealtimeTablesPort, type Row } from "../domain/timeseries/index.ts";
import type { TieringDeps } from "./rtdb-tiering.ts";
import { TieredTableReader } from "./rtdb-tiering-reader.ts";

export const BARS_DDL =
  "CREATE TABLE bars (symbol SYMBOL, open DOUBLE, high DOUBLE, low DOUBLE, close DOUBLE, volume LONG, " +
  "ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL";

export interface TieringEnv {
  ts: DuckDbTimeSeries;
  store: SqlControlPlaneStore;
  state: SqlTieringStateStore;
  objects: LocalObjectStore;
  parquet: DuckDbParquetInspector;
  reader: TieredTableReader;
  stagingDir: string;
  deps(extra?: Partial<TieringDeps>): TieringDeps;
  close(): Promise<void>;
}

export const quietLogger = { info: () => {}, warn: () => {} };

export async function openTieringEnv(dataDir: string): Promise<TieringEnv> {
  const ts = new DuckDbTimeSeries({ dataDir, threads: 1 });
  const sql = new SqliteClient(join(dataDir, "control-plane.sqlite"));
  const store = new SqlControlPlaneStore(sql);
  await store.migrate(TIERING_MIGRATIONS);
  const state = new SqlTieringStateStore(sql);
  const objects = new LocalObjectStore({ root: join(dataDir, "objects") });
  const parquet = new DuckDbParquetInspector();
  const stagingDir = join(dataDir, "tiering-staging");
  return {
    ts,
    store,
    state,
    objects,
    parquet,
    stagingDir,
    reader: new TieredTableReader({ engine: ts.realtime, state, objects }),
    deps: (extra = {}) => ({
      store,
      tables: ts.realtime,
      state,
      objects,
      parquet,
      stagingDir,
      logger: quietLogger,
      ...extra,
    }),
    close: async () => {
      await parquet.close();
      await ts.close();
      await store.close();
    },
  };
}

/** An active tenant with a provisioned time-series namespace. */
export async function addTenant(env: TieringEnv, slug: string): Promise<TenantRef> {
  const tenant = await env.store.createTenant({
    slug,
    display_name: slug,
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  const t = { tenantId: tenant.tenant_id, slug: tenant.slug };
  await env.ts.ensureNamespace(t);
  return t;
}

export interface Bar {
  ts: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** Daily bars of a shared market CSV (Date,Open,High,Low,Close,Adj Close,Volume) within [from, to). */
export function readDailyBars(file: string, from: string, to: string): Bar[] {
  const lines = readFileSync(file, "utf8").trim().split("\n").slice(1);
  return lines
    .map((line) => line.split(","))
    .filter(([date]) => date !== undefined && date >= from && date < to)
    .map(([date, open, high, low, close, , volume]) => ({
      ts: `${date}T00:00:00.000000Z`,
      open: Number(open),
      high: Number(high),
      low: Number(low),
      close: Number(close),
      volume: Number(volume),
    }));
}

/** Intraday bars of a shared market CSV (Date,Time,Open,High,Low,Close,Volume,OpenInterest). */
export function readIntradayBars(file: string): Bar[] {
  const lines = readFileSync(file, "utf8").trim().split("\n").slice(1);
  return lines
    .map((line) => line.split(","))
    .map(([date, time, open, high, low, close, volume]) => ({
      ts: `${date}T${time}.000000Z`,
      open: Number(open),
      high: Number(high),
      low: Number(low),
      close: Number(close),
      volume: Number(volume),
    }));
}

export async function loadBars(tables: RealtimeTablesPort, t: TenantRef, symbol: string, bars: Bar[]): Promise<void> {
  const spec = { ...parseCreateTable(BARS_DDL), ifNotExists: true };
  await tables.create(t, spec, normaliseDdl(spec));
  await tables.ingest(
    t,
    "bars",
    bars.map((b): Row => ({ symbol, ...b })),
  );
}
