/**
 * Reading a real-time table across the tiering boundary: a time range is answered as the
 * hot rows UNION ALL the tenant's tiered Parquet files for that range, so a partition
 * moving to the lakehouse never changes what a query returns. Also the tiering summary
 * the storage endpoint reports.
 *
 * Only parts recorded in the control plane for this tenant are read, and each object key
 * must sit under the tenant's own lakehouse namespace: a tenant never reads another's files.
 */
import { AppError } from "../../../domain/errors.ts";
import type { ObjectStore } from "../../../domain/object-store.ts";
import type {
  RangeRows,
  RealtimeRangeReader,
  RealtimeTieringView,
  TieredFile,
  TieringStateStore,
  TieringSummary,
  TimeRange,
} from "../../../domain/rtdb/index.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";

/** The most rows one read returns (like the lakehouse gateway's SQL cap). */
export const DEFAULT_READ_LIMIT = 100_000;

export class TieredTableReader implements RealtimeTieringView {
  constructor(
    private readonly deps: {
      /** Null when the time-series engine cannot read Parquet (reads answer unavailable). */
      engine: RealtimeRangeReader | null;
      state: TieringStateStore;
      objects: ObjectStore;
    },
  ) {}

  summary(t: TenantRef): Promise<TieringSummary> {
    return tieringSummary(this.deps, t);
  }

  /** Rows of `table` with designated timestamp in [from, to), hot and tiered, in timestamp order. */
  async read(t: TenantRef, table: string, range: TimeRange, limit = DEFAULT_READ_LIMIT): Promise<RangeRows> {
    const from = Date.parse(range.from);
    const to = Date.parse(range.to);
    if (Number.isNaN(from) || Number.isNaN(to) || from >= to) {
      throw new AppError("bad_request", "range needs ISO 8601 instants with from < to");
    }
    if (!Number.isInteger(limit) || limit < 1) throw new AppError("bad_request", "limit must be a positive integer");
    const prefix = `${lakehouseNamespace(t.slug)}/`;
    const files: TieredFile[] = [];
    for (const p of await this.deps.state.parts(t.tenantId, table)) {
      // Pending parts may be half written; exported ones are read only once their hot rows are gone.
      if (p.state === "pending" || Date.parse(p.to) <= from || Date.parse(p.from) >= to) continue;
      if (!p.objectKey.startsWith(prefix)) {
        throw new AppError("internal", `tiered part ${p.objectKey} is outside the tenant's namespace`);
      }
      files.push({
        partition: p.partition,
        path: await this.deps.objects.localPath(p.objectKey),
        onlyIfHotAbsent: p.state === "exported",
      });
    }
    if (!this.deps.engine) {
      throw new AppError("unavailable", "This time-series engine cannot read tiered partitions yet");
    }
    return this.deps.engine.readRange(t, table, range, files, limit);
  }
}

/** What is tiered for the tenant: counts of tiered parts and where they are. */
export async function tieringSummary(
  deps: { state: TieringStateStore; objects: ObjectStore },
  t: TenantRef,
): Promise<TieringSummary> {
  const tiered = (await deps.state.tenantParts(t.tenantId)).filter((p) => p.state === "tiered");
  return {
    tables: new Set(tiered.map((p) => p.table.toLowerCase())).size,
    partitions: new Set(tiered.map((p) => `${p.table.toLowerCase()}/${p.partition}`)).size,
    rows: tiered.reduce((n, p) => n + p.rows, 0),
    bytes: tiered.reduce((n, p) => n + p.bytes, 0),
    location: `${deps.objects.location.replace(/\/$/, "")}/${lakehouseNamespace(t.slug)}/rtdb/`,
  };
}
