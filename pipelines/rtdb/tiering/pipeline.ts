/**
 * Tiering of real-time tables (spec 4.8, 8.2): every partition whose whole range ends more
 * than 7 days ago is exported to Parquet under the tenant's lakehouse namespace on object
 * storage, and its hot rows are dropped once the copy is verified. docs/tiering.md.
 *
 * One part of one partition goes through, under a claim (a lease in the control plane):
 *   pending:  export to a staging file; read it back (row count, timestamp bounds) and
 *             compare with exportPartition's count and a fresh count of the hot partition;
 *             publish it (an atomic rename or PUT); record `exported`.
 *   exported: check the published object (present, same row count); drop the hot
 *             partition when it still holds exactly those rows; record `tiered`.
 * Every step can be repeated: a rerun after a kill anywhere publishes the same key again
 * (never a second copy) and drops only after the record says the copy is verified.
 */
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../../../domain/errors.ts";
import type { ObjectStore } from "../../../domain/object-store.ts";
import type { ControlPlaneStore } from "../../../domain/ports.ts";
import {
  isTierable,
  type ParquetInspector,
  type PartitionInfo,
  type RealtimeTablesPort,
  type TableSpec,
  type TieredPart,
  type TieringStateStore,
  tieredObjectKey,
} from "../../../domain/rtdb/index.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";

export const RTDB_TIERING_QUEUE = "rtdb-tiering";
/** How long a run holds a part; renewed at every stage, so only a dead run's claim runs out. */
export const DEFAULT_CLAIM_MS = 15 * 60_000;

/** The points between steps, in order; tests kill a run at each (onStage). */
export const TIERING_STAGES = ["claimed", "staged", "verified", "published", "recorded", "dropped"] as const;
export type TieringStage = (typeof TIERING_STAGES)[number];

export interface PartKey {
  tenantId: string;
  table: string;
  partition: string;
  part: number;
}

export interface TieringLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface TieringDeps {
  store: Pick<ControlPlaneStore, "listTenants">;
  tables: RealtimeTablesPort;
  state: TieringStateStore;
  objects: ObjectStore;
  parquet: ParquetInspector;
  /** Where exports are written before publishing (best on the object store's filesystem). */
  stagingDir: string;
  logger: TieringLogger;
  now?: () => Date;
  /** This run's claim owner (unique per process and run). */
  owner?: string;
  claimMs?: number;
  /** Test-only: awaited between steps (a crash test kills the process there). */
  onStage?: (stage: TieringStage, key: PartKey) => Promise<void> | void;
}

/** A type alias so it is a JsonValue: the job's stored result. */
export type TieringOutcome = {
  tenants: number;
  tables: number;
  parts_tiered: number;
  rows_tiered: number;
  /** Parts another run holds a live claim on. */
  parts_busy: number;
  failures: { tenant_id: string; table: string; partition: string; error: string }[];
};

/** One pass over every active tenant's tables. Failures of one part are recorded and the pass goes on. */
export async function runTiering(deps: TieringDeps): Promise<TieringOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const owner = deps.owner ?? `${process.pid}:${crypto.randomUUID()}`;
  const out: TieringOutcome = { tenants: 0, tables: 0, parts_tiered: 0, rows_tiered: 0, parts_busy: 0, failures: [] };
  await mkdir(deps.stagingDir, { recursive: true });
  await sweepStaging(deps.stagingDir, deps.claimMs ?? DEFAULT_CLAIM_MS);
  for (const tenant of await deps.store.listTenants()) {
    if (!tenant.is_active || tenant.provisioning_state !== "active") continue;
    const t: TenantRef = { tenantId: tenant.tenant_id, slug: tenant.slug };
    if (!(await deps.tables.ready(t))) continue;
    const tables = await deps.tables.list(t);
    if (tables.length === 0) continue;
    out.tenants++;
    for (const { spec } of tables) {
      out.tables++;
      const hot = await deps.tables.partitions(t, spec.name);
      const parts = await deps.state.parts(t.tenantId, spec.name);
      // Old hot partitions, and partitions a killed run left half done (maybe dropped already).
      const names = new Set(hot.filter((p) => isTierable(p, now)).map((p) => p.partition));
      for (const p of parts) if (p.state !== "tiered") names.add(p.partition);
      for (const name of [...names].sort()) {
        const ctx = { deps, t, spec, owner };
        try {
          const res = await tierPartition(
            ctx,
            name,
            hot.find((p) => p.partition === name) ?? null,
            parts.filter((p) => p.partition === name),
          );
          if (res === "busy") out.parts_busy++;
          else if (res !== null) {
            out.parts_tiered++;
            out.rows_tiered += res.rows;
          }
        } catch (err) {
          const error = (err as Error).message;
          out.failures.push({ tenant_id: t.tenantId, table: spec.name, partition: name, error });
          deps.logger.warn({ tenant_id: t.tenantId, table: spec.name, partition: name, error }, "tiering failed");
        }
      }
    }
  }
  return out;
}

interface Ctx {
  deps: TieringDeps;
  t: TenantRef;
  spec: TableSpec;
  owner: string;
}

/** Takes the partition's open part (or a new one for hot rows past the tiered parts) to `tiered`. */
async function tierPartition(
  ctx: Ctx,
  partition: string,
  hot: PartitionInfo | null,
  parts: TieredPart[],
): Promise<{ rows: number } | "busy" | null> {
  const { deps, t, spec, owner } = ctx;
  const last = parts.at(-1);
  // A new part only for hot rows in a partition whose parts are all tiered (late writes).
  if (last?.state === "tiered" || last === undefined) {
    if (!hot || hot.rows === 0) return null;
  }
  const partNo = last === undefined ? 0 : last.state === "tiered" ? last.part + 1 : last.part;
  const key: PartKey = { tenantId: t.tenantId, table: spec.name, partition, part: partNo };
  const ns = lakehouseNamespace(t.slug);
  const objectKey = tieredObjectKey(ns, spec.name, partition, partNo);
  const claim = () =>
    deps.state.claim(key, { ...range(hot, last), rows: hot?.rows ?? 0, objectKey }, owner, until(deps));
  let part = await claim();
  if (!part) return "busy";
  let renewedAt = Date.now();
  const renew = async () => {
    if (!(await claim())) throw lost(key);
    renewedAt = Date.now();
  };
  const stage = async (s: TieringStage) => {
    await deps.onStage?.(s, key);
    // Renews the lease once a third of it has passed: a long export keeps its claim, a dead
    // run's claim runs out. Every state move also checks the claim.
    if (Date.now() - renewedAt > (deps.claimMs ?? DEFAULT_CLAIM_MS) / 3) await renew();
  };
  let failure: string | null = null;
  try {
    await stage("claimed");
    // At most a few turns: exported -> pending happens only when rows arrive during the run.
    for (let turn = 0; turn < 3; turn++) {
      if (part.state === "pending") {
        const published = await exportVerifyPublish(ctx, partition, part.objectKey, stage);
        if (!(await deps.state.transition(key, owner, { state: "exported", ...published }))) throw lost(key);
        await stage("recorded");
        part = { ...part, state: "exported", ...published };
      }
      if (part.state === "exported") {
        const next = await dropIfCopied(ctx, part, stage, renew);
        if (next === "tiered") {
          if (!(await deps.state.transition(key, owner, { state: "tiered" }))) throw lost(key);
          deps.logger.info(
            { tenant_id: t.tenantId, table: spec.name, partition, part: partNo, rows: part.rows },
            "tiered",
          );
          return { rows: part.rows };
        }
        if (!(await deps.state.transition(key, owner, { state: "pending", lastError: next }))) throw lost(key);
        part = { ...part, state: "pending" };
        continue;
      }
      return null; // tiered already
    }
    throw new AppError("conflict", "rows kept arriving in the partition during tiering; will retry");
  } catch (err) {
    failure = (err as Error).message.slice(0, 2000);
    throw err;
  } finally {
    // Best effort: an unreleased claim only delays the next run until it runs out.
    await deps.state.release(key, owner, failure).catch(() => {});
  }
}

/** Exports to a staging file, verifies it against the engine's count, publishes it. */
async function exportVerifyPublish(
  { deps, t, spec }: Ctx,
  partition: string,
  objectKey: string,
  stage: (s: TieringStage) => Promise<void>,
): Promise<{ rows: number; bytes: number }> {
  const file = join(deps.stagingDir, `${crypto.randomUUID()}.parquet`);
  try {
    const { rows } = await deps.tables.exportPartition(t, spec.name, partition, file);
    // Only after external deletes: a claimed part always had hot rows when claimed.
    if (rows === 0) throw new AppError("conflict", "the hot partition is empty: nothing to export");
    await stage("staged");
    const read = await deps.parquet.inspect(file, spec.designated);
    const hot = (await deps.tables.partitions(t, spec.name)).find((p) => p.partition === partition);
    const { from, to } = hot ?? { from: "", to: "" };
    if (read.rows !== rows || hot?.rows !== rows) {
      throw new AppError(
        "conflict",
        `row counts disagree (exported ${rows}, file ${read.rows}, hot ${hot?.rows ?? 0}): the partition changed ` +
          "during the export; will retry",
      );
    }
    const inside = (iso: string | null) =>
      iso !== null && Date.parse(iso) >= Date.parse(from) && Date.parse(iso) < Date.parse(to);
    if (rows > 0 && !(inside(read.min) && inside(read.max))) {
      throw new AppError("internal", `exported timestamps ${read.min}..${read.max} fall outside [${from}, ${to})`);
    }
    await stage("verified");
    const { bytes } = await deps.objects.put(objectKey, file);
    await stage("published");
    return { rows, bytes };
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * For an exported part: checks the published copy, then drops the hot rows when they are
 * exactly the copied ones. "tiered" when the hot rows are gone; otherwise the reason to export again.
 */
async function dropIfCopied(
  { deps, t, spec }: Ctx,
  part: TieredPart,
  stage: (s: TieringStage) => Promise<void>,
  renew: () => Promise<void>,
): Promise<"tiered" | string> {
  const object = await deps.objects.stat(part.objectKey);
  const copied = object
    ? await deps.parquet.inspect(await deps.objects.localPath(part.objectKey), spec.designated)
    : null;
  const hot = (await deps.tables.partitions(t, spec.name)).find((p) => p.partition === part.partition);
  if (!copied || copied.rows !== part.rows) {
    // Only while the hot rows remain can the copy be made again.
    if (!hot)
      throw new AppError("internal", `tiered copy ${part.objectKey} is missing or short and the hot rows are gone`);
    return `published copy missing or short (${copied?.rows ?? "absent"} of ${part.rows} rows): exporting again`;
  }
  if (!hot) return "tiered"; // dropped before a kill: only the record was missing
  if (hot.rows > part.rows) return `${hot.rows - part.rows} rows arrived before the drop: exporting again`;
  if (hot.rows < part.rows) return "tiered"; // dropped, then late rows came: they become the next part
  // Still ours right before the one step that cannot be repeated from the hot side.
  await renew();
  await deps.tables.dropPartition(t, spec.name, part.partition);
  await stage("dropped");
  return "tiered";
}

function range(hot: PartitionInfo | null, last: TieredPart | undefined): { from: string; to: string } {
  const r = hot ?? last;
  if (!r) throw new AppError("internal", "a part needs a hot partition or an earlier part");
  return { from: r.from, to: r.to };
}

function until(deps: TieringDeps): string {
  return new Date(Date.now() + (deps.claimMs ?? DEFAULT_CLAIM_MS)).toISOString();
}

const lost = (k: PartKey) => new AppError("conflict", `lost the claim on ${k.table} ${k.partition} part ${k.part}`);

/** Removes staging files older than a claim: their runs are dead (a live run renews within claimMs). */
async function sweepStaging(dir: string, claimMs: number): Promise<void> {
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const s = await stat(path).catch(() => null);
    // Wall-clock time on purpose (file times are), not the injectable tiering clock.
    if (s && Date.now() - s.mtimeMs > claimMs) await rm(path, { force: true });
  }
}
