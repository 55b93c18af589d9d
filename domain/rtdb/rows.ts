/**
 * Rows for ingestion into real-time tables: checked against the table's spec and turned
 * into one canonical value per column, the same on every engine. Pure: no I/O here.
 *
 * Canonical values, by QuestDB type: SYMBOL/STRING/VARCHAR/CHAR/UUID -> string;
 * DOUBLE/FLOAT -> number (NaN reads as null, as in QuestDB); LONG/INT/SHORT/BYTE -> a safe
 * integer number; BOOLEAN -> boolean; TIMESTAMP/DATE -> epoch microseconds (bigint).
 * Null means "no value" (the designated timestamp always has one).
 */
import { AppError } from "../errors.ts";
import type { ColumnType, Row, RowValue, TableSpec } from "./table-spec.ts";

export type CanonicalValue = string | number | boolean | bigint | null;

/** Most rows in one engine write (one ILP request, one appender flush). */
export const MAX_BATCH_ROWS = 50_000;

/** Integer ranges of the QuestDB integer types (LONG: what a JS number holds exactly). */
const INT_RANGE: Partial<Record<ColumnType, [number, number]>> = {
  LONG: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  INT: [-2147483647, 2147483647],
  SHORT: [-32768, 32767],
  BYTE: [-128, 127],
};

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
/** 0001-01-01 .. 9999-12-31 in microseconds. */
const MIN_MICROS = -62135596800000000n;
const MAX_MICROS = 253402300799999999n;

/** Epoch microseconds of a timestamp value; throws a message (not an AppError) when it is not one. */
export function toEpochMicros(v: Date | string | number | bigint): bigint {
  let us: bigint;
  if (typeof v === "bigint") us = v;
  else if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`${v} is not a timestamp`);
    us = BigInt(Math.round(v * 1000));
  } else if (v instanceof Date) {
    const ms = v.getTime();
    if (Number.isNaN(ms)) throw new Error("an invalid Date");
    us = BigInt(ms) * 1000n;
  } else if (typeof v === "string") us = parseIsoMicros(v);
  else throw new Error(`${typeof v} is not a timestamp`);
  if (us < MIN_MICROS || us > MAX_MICROS) throw new Error("a timestamp outside years 1..9999");
  return us;
}

function parseIsoMicros(text: string): bigint {
  const m = ISO_PATTERN.exec(text.trim());
  if (!m) throw new Error(`'${text}' is not an ISO 8601 timestamp`);
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => Number(x ?? 0)) as number[];
  const ms = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const at = new Date(ms);
  if (
    at.getUTCFullYear() !== y ||
    at.getUTCMonth() !== mo! - 1 ||
    at.getUTCDate() !== d ||
    at.getUTCHours() !== h ||
    at.getUTCMinutes() !== mi ||
    at.getUTCSeconds() !== s
  ) {
    throw new Error(`'${text}' is not a valid date-time`);
  }
  let offsetMin = 0;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    offsetMin = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * (zone[0] === "-" ? -1 : 1);
  }
  const fraction = BigInt((m[7] ?? "").padEnd(6, "0").slice(0, 6));
  return (BigInt(ms) - BigInt(offsetMin * 60_000)) * 1000n + fraction;
}

/** ISO 8601 (UTC, microseconds) of epoch microseconds. */
export function microsToIso(us: bigint): string {
  const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
  const frac = ((us % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return `${new Date(Number(ms)).toISOString().slice(0, 19)}.${frac.toString().padStart(6, "0")}Z`;
}

/** A read value made JSON-safe: BIGINT as a number (a string past 2^53), non-finite numbers as null. */
export function jsonSafeValue(v: unknown): unknown {
  if (typeof v === "bigint") {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : String(v);
  }
  if (typeof v === "number" && !Number.isFinite(v)) return null;
  return v;
}

const FAST_DOUBLE = 1;
const FAST_TIMESTAMP = 2;
const FAST_INT = 3;
const FAST_TEXT = 4;

interface PlannedColumn {
  name: string;
  type: ColumnType;
  lower: string;
}

/**
 * Turns rows of one table into canonical value arrays aligned with `spec.columns`. Column names
 * match case-insensitively; each problem is a bad_request naming the row (1-based across the
 * whole ingest), the column and the value.
 */
export class RowConverter {
  readonly columns: readonly PlannedColumn[];
  readonly designatedIndex: number;
  private readonly byName = new Map<string, number>();
  private readonly fast: number[];
  /** FAST_INT columns' [lo, hi] (NaN elsewhere, which no number passes). */
  private readonly lo: number[];
  private readonly hi: number[];
  /**
   * The previous row's keys and their column indexes, by position: rows of one batch almost
   * always share their keys in one order, and `===` on the same key string is a pointer compare,
   * cheaper than a Map lookup. A differing key is looked up and replaces the entry.
   */
  private readonly seenKeys: string[] = [];
  private readonly seenIndex: number[] = [];
  private rowNumber = 0;

  constructor(readonly spec: TableSpec) {
    this.columns = spec.columns.map((c) => ({ name: c.name, type: c.type, lower: c.name.toLowerCase() }));
    this.columns.forEach((c, i) => {
      this.byName.set(c.name, i);
      this.byName.set(c.lower, i);
    });
    this.designatedIndex = this.columns.findIndex((c) => c.lower === spec.designated.toLowerCase());
    this.fast = this.columns.map((c) =>
      c.type === "DOUBLE" || c.type === "FLOAT"
        ? FAST_DOUBLE
        : c.type === "TIMESTAMP"
          ? FAST_TIMESTAMP
          : INT_RANGE[c.type]
            ? FAST_INT
            : c.type === "SYMBOL" || c.type === "STRING" || c.type === "VARCHAR"
              ? FAST_TEXT
              : 0,
    );
    this.lo = this.columns.map((c) => INT_RANGE[c.type]?.[0] ?? Number.NaN);
    this.hi = this.columns.map((c) => INT_RANGE[c.type]?.[1] ?? Number.NaN);
  }

  /** Rows converted so far. */
  get converted(): number {
    return this.rowNumber;
  }

  convert(row: Row): CanonicalValue[] {
    return this.convertInto(row, new Array(this.columns.length));
  }

  /** convert() into a caller's array (reused across rows by a writer that consumes each row at once). */
  convertInto(row: Row, out: CanonicalValue[]): CanonicalValue[] {
    const n = ++this.rowNumber;
    if (row === null || typeof row !== "object") throw this.error(n, null, "is not an object");
    out.fill(null, 0, this.columns.length);
    let values = 0;
    let k = 0;
    for (const key in row) {
      const value = row[key];
      let i: number | undefined;
      if (key === this.seenKeys[k]) i = this.seenIndex[k]!;
      else {
        i = this.byName.get(key);
        if (i === undefined) {
          i = this.byName.get(key.toLowerCase());
          if (i === undefined) throw this.error(n, key, `is not a column of table '${this.spec.name}'`);
        }
        this.seenKeys[k] = key;
        this.seenIndex[k] = i;
      }
      k++;
      if (value === null || value === undefined) continue;
      // Fast paths for the common cases (a number into DOUBLE or an integer column, a bigint
      // into TIMESTAMP, text without NUL into a text column), each accepting exactly what the
      // general check accepts and converting it the same way; that check handles everything
      // else and every refusal.
      const fast = this.fast[i];
      if (fast === FAST_DOUBLE && typeof value === "number") out[i] = Number.isNaN(value) ? null : value;
      else if (fast === FAST_TIMESTAMP && typeof value === "bigint" && value >= MIN_MICROS && value <= MAX_MICROS) {
        out[i] = value;
      } else if (
        fast === FAST_INT &&
        typeof value === "number" &&
        Number.isInteger(value) &&
        value >= this.lo[i]! &&
        value <= this.hi[i]!
      ) {
        out[i] = value;
      } else if (fast === FAST_TEXT && typeof value === "string" && !value.includes("\0")) out[i] = value;
      else out[i] = this.value(n, this.columns[i]!, value);
      if (out[i] !== null && i !== this.designatedIndex) values++;
    }
    if (out[this.designatedIndex] === null) {
      throw this.error(n, this.columns[this.designatedIndex]!.name, "is the designated timestamp and needs a value");
    }
    if ((out[this.designatedIndex] as bigint) < 0n) {
      throw this.error(n, this.columns[this.designatedIndex]!.name, "is the designated timestamp: before 1970");
    }
    // QuestDB's line protocol has no empty rows: the same rule on every engine.
    if (values === 0) throw this.error(n, null, "needs a value besides the designated timestamp");
    return out;
  }

  private value(n: number, col: PlannedColumn, v: Exclude<RowValue, null | undefined>): CanonicalValue {
    switch (col.type) {
      case "SYMBOL":
      case "STRING":
      case "VARCHAR":
        if (typeof v !== "string") throw this.typeError(n, col, v);
        if (v.includes("\0")) throw this.error(n, col.name, "contains a NUL character");
        return v;
      case "CHAR":
        if (typeof v !== "string" || v.length !== 1) throw this.typeError(n, col, v, "a one-character string");
        return v;
      case "UUID":
        if (typeof v !== "string" || !UUID_PATTERN.test(v)) throw this.typeError(n, col, v, "a UUID string");
        return canonicalUuid(v);
      case "DOUBLE":
      case "FLOAT":
        if (typeof v !== "number") throw this.typeError(n, col, v);
        return Number.isNaN(v) ? null : v;
      case "BOOLEAN":
        if (typeof v !== "boolean") throw this.typeError(n, col, v);
        return v;
      case "TIMESTAMP":
      case "DATE":
        if (typeof v === "boolean") throw this.typeError(n, col, v, "a timestamp");
        try {
          return toEpochMicros(v);
        } catch (err) {
          throw this.error(n, col.name, `needs a timestamp, got ${(err as Error).message}`);
        }
      default: {
        const [lo, hi] = INT_RANGE[col.type] ?? [0, 0];
        const num = typeof v === "bigint" ? Number(v) : v;
        if (typeof num !== "number" || !Number.isInteger(num)) throw this.typeError(n, col, v, "an integer");
        if (num < lo || num > hi || (typeof v === "bigint" && BigInt(num) !== v)) {
          throw this.error(n, col.name, `${String(v)} is outside the ${col.type} range [${lo}, ${hi}]`);
        }
        return num;
      }
    }
  }

  private typeError(n: number, col: PlannedColumn, v: unknown, want?: string): AppError {
    const what = want ?? (col.type === "BOOLEAN" ? "a boolean" : col.type === "DOUBLE" ? "a number" : "a string");
    const shown = typeof v === "string" ? `'${v.slice(0, 40)}'` : typeof v === "bigint" ? `${v}n` : String(v);
    return this.error(n, col.name, `is ${col.type} and needs ${what}, got ${shown}`);
  }

  private error(n: number, column: string | null, msg: string): AppError {
    return new AppError("bad_request", `row ${n}${column === null ? "" : `: column '${column}'`} ${msg}`);
  }
}

/** 8-4-4-4-12 lower-case hex. */
function canonicalUuid(v: string): string {
  const h = v.replaceAll("-", "").toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The rows as batches of at most `max` rows (the batches of an iterable are split, never merged). */
export async function* batchesOf(rows: Row[] | AsyncIterable<Row[]>, max = MAX_BATCH_ROWS): AsyncGenerator<Row[]> {
  const split = function* (batch: Row[]) {
    if (batch.length <= max) {
      if (batch.length > 0) yield batch;
      return;
    }
    for (let i = 0; i < batch.length; i += max) yield batch.slice(i, i + max);
  };
  if (Array.isArray(rows)) {
    yield* split(rows);
    return;
  }
  for await (const batch of rows) yield* split(batch);
}
