/**
 * Tiering of real-time table partitions to the lakehouse (spec 4.8, 8.2): the rules and
 * the records the pipeline (pipelines/rtdb/tiering/pipeline.ts) drives; its ports are in
 * ports.ts. Pure: no I/O here.
 *
 * A partition is tiered in parts: part 0 is the partition as it stood when first exported;
 * rows written later into a partition that is already tiered (out-of-order writes more
 * than 7 days late) become part 1, 2, ... Each part moves pending -> exported -> tiered:
 *   pending   claimed; the Parquet file may or may not be published yet
 *   exported  the file is published and verified; the hot rows may or may not be dropped
 *   tiered    the hot rows are dropped; the file is the only copy
 */
import { AppError } from "../errors.ts";
import type { PartitionBy, PartitionInfo } from "./table-spec.ts";

/** Spec 4.8 / 8.2: partitions older than 7 days are exported automatically. */
export const TIERING_AGE_MS = 7 * 86_400_000;

const PARTITION_FORMAT: Record<PartitionBy, RegExp> = {
  DAY: /^(\d{4})-(\d{2})-(\d{2})$/,
  HOUR: /^(\d{4})-(\d{2})-(\d{2})T(\d{2})$/,
  MONTH: /^(\d{4})-(\d{2})$/,
};

/** The partition's whole range, ISO [from, to); bad_request when the name does not fit the unit. */
export function partitionRange(unit: PartitionBy, partition: string): { from: string; to: string } {
  const m = PARTITION_FORMAT[unit].exec(partition);
  const bad = () => new AppError("bad_request", `'${partition}' is not a ${unit} partition name`);
  if (!m) throw bad();
  const [y, mo, d, h] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 1), Number(m[4] ?? 0)];
  const from = new Date(Date.UTC(y, mo - 1, d, h));
  // Date.UTC rolls over out-of-range fields (2024-02-30 -> March 1): refuse those.
  if (from.getUTCFullYear() !== y || from.getUTCMonth() !== mo - 1 || from.getUTCDate() !== d || h > 23) throw bad();
  const to =
    unit === "MONTH"
      ? new Date(Date.UTC(y, mo, 1))
      : new Date(from.getTime() + (unit === "DAY" ? 86_400_000 : 3_600_000));
  return { from: from.toISOString(), to: to.toISOString() };
}

/** The name of the partition holding instant `at` (QuestDB's spelling). */
export function partitionOf(unit: PartitionBy, at: Date): string {
  const iso = at.toISOString();
  return unit === "MONTH" ? iso.slice(0, 7) : unit === "DAY" ? iso.slice(0, 10) : iso.slice(0, 13);
}

/** True when the partition's whole range ends more than 7 days before `now`. */
export function isTierable(p: Pick<PartitionInfo, "to">, now: Date): boolean {
  return Date.parse(p.to) < now.getTime() - TIERING_AGE_MS;
}

/** Object keys: `<lakehouse namespace>/rtdb/<table>/<partition>/part-<n>.parquet`. */
export function tieredObjectKey(namespace: string, table: string, partition: string, part: number): string {
  return `${namespace}/rtdb/${table.toLowerCase()}/${partition}/part-${part}.parquet`;
}

export const TIERING_STATES = ["pending", "exported", "tiered"] as const;
export type TieringState = (typeof TIERING_STATES)[number];

export interface TieredPart {
  tenantId: string;
  /** The table's name as created (case preserved); matched case-insensitively. */
  table: string;
  partition: string;
  part: number;
  state: TieringState;
  from: string;
  to: string;
  /** Rows in the published file (exported, tiered); the hot count when claimed (pending). */
  rows: number;
  bytes: number;
  objectKey: string;
  lastError: string | null;
  updatedAt: string;
}

/** A time range, ISO [from, to). */
export interface TimeRange {
  from: string;
  to: string;
}

/** A tiered Parquet file offered to a range read. */
export interface TieredFile {
  partition: string;
  /** A local path the engine can read. */
  path: string;
  /**
   * True for a part that is published but maybe not yet dropped from the hot table: it is
   * read only when the hot table has no rows in that partition, so no row is read twice.
   */
  onlyIfHotAbsent: boolean;
}

export interface RangeRows {
  columns: string[];
  /** JSON values: timestamps as ISO strings, LONG as a number (a string past 2^53). */
  rows: unknown[][];
}

/** What is tiered for a tenant (the storage endpoint's tiering_note reports it). */
export interface TieringSummary {
  tables: number;
  partitions: number;
  rows: number;
  bytes: number;
  /** Where the tenant's tiered files are: `<object store>/<namespace>/rtdb/`. */
  location: string;
}
