/**
 * Time-series features of datasets (realtime_cols, spec 2.6): per entity key, one
 * aggregation of a column over a window of the tenant's real-time table, hot rows and
 * tiered files alike (the tiering view reads both).
 *
 * The window ends at the table's newest row (hot partitions or tiered parts, whichever is
 * later), not at the wall clock: a feed that paused, or a historical table, still yields
 * values. Rows are read once per feature, bounded by MAX_WINDOW_ROWS (a wider window is a
 * validation error that says so, never a silent truncation).
 */
import { AppError } from "../../../domain/errors.ts";
import type { RealtimeFeaturePort } from "../../../domain/foundry/ports.ts";
import type { RealtimeTablesPort, RealtimeTieringView, TieringStateStore } from "../../../domain/rtdb/ports.ts";
import type { TenantRef } from "../../../domain/tenants/namespaces.ts";

export const MAX_WINDOW_ROWS = 2_000_000;
const NUMERIC_TYPES = new Set(["DOUBLE", "FLOAT", "LONG", "INT", "SHORT", "BYTE"]);

export class RealtimeFeatures implements RealtimeFeaturePort {
  constructor(
    private readonly deps: { tables: RealtimeTablesPort; view: RealtimeTieringView; state: TieringStateStore },
  ) {}

  async columns(t: TenantRef, table: string): Promise<{ name: string; type: string }[] | null> {
    const found = await this.deps.tables.get(t, table);
    return found ? found.spec.columns.map((c) => ({ name: c.name, type: c.type })) : null;
  }

  async aggregate(
    t: TenantRef,
    q: { table: string; column: string; agg: string; windowMs: number },
    keys: string[],
  ): Promise<Map<string, number | null>> {
    const found = await this.deps.tables.get(t, q.table);
    if (!found) throw new AppError("not_found", `No real-time table '${q.table}'`);
    const spec = found.spec;
    const col = spec.columns.find((c) => c.name.toLowerCase() === q.column.toLowerCase());
    const key = spec.columns.find((c) => c.type.toUpperCase() === "SYMBOL");
    if (!col) throw new AppError("bad_request", `Real-time table '${spec.name}' has no column '${q.column}'`);
    if (!key) throw new AppError("bad_request", `Real-time table '${spec.name}' has no SYMBOL column to join on`);
    if (q.agg !== "count" && q.agg !== "last" && !NUMERIC_TYPES.has(col.type.toUpperCase())) {
      throw new AppError("bad_request", `${q.agg} needs a numeric column; '${col.name}' is ${col.type}`);
    }
    const newest = await this.newest(t, spec.name, spec.designated);
    const out = new Map<string, number | null>(keys.map((k) => [k, null]));
    if (newest === null) return out;
    const range = { from: new Date(newest - q.windowMs + 1).toISOString(), to: new Date(newest + 1).toISOString() };
    const read = await this.deps.view.read(t, spec.name, range, MAX_WINDOW_ROWS + 1);
    if (read.rows.length > MAX_WINDOW_ROWS) {
      throw new AppError(
        "bad_request",
        `The window holds more than ${MAX_WINDOW_ROWS} rows of '${spec.name}': shorten it`,
      );
    }
    const ki = read.columns.indexOf(key.name);
    const vi = read.columns.indexOf(col.name);
    const groups = new Map<string, number[]>();
    const wanted = new Set(keys);
    for (const row of read.rows) {
      const k = row[ki];
      if (k === null || k === undefined || !wanted.has(String(k))) continue;
      const v = row[vi];
      const list = groups.get(String(k)) ?? [];
      if (q.agg === "count") list.push(v === null || v === undefined ? Number.NaN : 1);
      else if (v !== null && v !== undefined) list.push(Number(v));
      groups.set(String(k), list);
    }
    for (const [k, values] of groups) out.set(k, aggregateValues(q.agg, values));
    return out;
  }

  /**
   * Epoch ms of the table's newest row, hot or tiered; null when it has none. Partitions and
   * tiered parts give ranges (on QuestDB a partition's end, not its last row), so the newest
   * one's rows are read and the last timestamp taken; a partition too large to read is
   * anchored at its end.
   */
  private async newest(t: TenantRef, table: string, designated: string): Promise<number | null> {
    let best: { from: string; to: string; rows: number } | null = null;
    const consider = (p: { from: string; to: string; rows: number }) => {
      if (Number.isFinite(Date.parse(p.to)) && (best === null || Date.parse(p.to) > Date.parse(best.to))) best = p;
    };
    for (const p of await this.deps.tables.partitions(t, table)) consider(p);
    for (const p of await this.deps.state.parts(t.tenantId, table)) if (p.state !== "pending") consider(p);
    const found = best as { from: string; to: string; rows: number } | null;
    if (found === null) return null;
    const end = Date.parse(found.to);
    if (found.rows > MAX_WINDOW_ROWS) return end;
    const from = Date.parse(found.from);
    const range = {
      from: new Date(Number.isFinite(from) && from < end ? from : end - 1).toISOString(),
      to: new Date(end + 1).toISOString(),
    };
    const read = await this.deps.view.read(t, table, range, Math.max(1, found.rows) + 1);
    const ts = read.columns.indexOf(designated);
    const last = read.rows.at(-1)?.[ts];
    const ms = typeof last === "string" ? Date.parse(last) : Number.NaN;
    return Number.isFinite(ms) ? ms : end;
  }
}

/** avg, sum, min, max, last (rows arrive in timestamp order), count (non-null), stddev (sample). */
export function aggregateValues(agg: string, values: number[]): number | null {
  if (agg === "count") return values.filter((v) => !Number.isNaN(v)).length;
  if (values.length === 0) return null;
  switch (agg) {
    case "sum":
      return values.reduce((a, b) => a + b, 0);
    case "avg":
      return values.reduce((a, b) => a + b, 0) / values.length;
    case "min":
      return values.reduce((a, b) => Math.min(b, a));
    case "max":
      return values.reduce((a, b) => Math.max(b, a));
    case "last":
      return values[values.length - 1] ?? null;
    case "stddev": {
      if (values.length < 2) return null;
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1));
    }
    default:
      throw new AppError("bad_request", `Unknown aggregation '${agg}'`);
  }
}
