/**
 * InfluxDB line protocol (ILP, v1 text) for one table, encoded straight from the canonical
 * row values (domain/rtdb RowConverter) into the UTF-8 bytes of one request body per batch.
 *
 * Why not @questdb/nodejs-client's Sender: it spends ~4 µs a row on generic checks (name
 * validation, capacity checks with Buffer.byteLength, escaping character by character, a
 * debug log string and an awaited promise per row), capping ingest near 85k rows per CPU
 * second; issue 20 asks for 1M. The wire format is the one the Sender writes (v1: text
 * floats, `i` integers, `t` microsecond timestamps, the designated timestamp in
 * nanoseconds), and the escaping rules are ILP's: in names and symbol values a space, comma,
 * equals sign, backslash, CR or LF is preceded by a backslash; in quoted strings a double
 * quote, backslash, CR or LF is.
 *
 * Why bytes, not a string: building each line with string appends and the batch as one
 * 5 MB string, then letting fetch encode it as UTF-8, cost more than everything else on the
 * path together (ropes to flatten, a copy per batch, garbage per row). Here the rows go into
 * one reused, growing Uint8Array: everything fixed per table (the table name, every
 * `name=`) is encoded once; integers, safe-integer floats and timestamps are written digit
 * by digit without a string; other floats are `String(v)` copied as ASCII (the same
 * shortest round-trip text as before); names and strings take an ASCII loop that escapes as
 * it copies, and fall back to TextEncoder only from the first non-ASCII character on.
 * ilp-reference.ts keeps the previous string encoder as the oracle the tests compare
 * against byte for byte.
 */
import type { CanonicalValue, ColumnType } from "../../domain/rtdb/index.ts";

export const IlpKind = { Symbol: 0, Float: 1, Int: 2, String: 3, Boolean: 4, Timestamp: 5 } as const;
export type IlpKindValue = (typeof IlpKind)[keyof typeof IlpKind];

/** How each QuestDB type goes over ILP (strings cover CHAR and UUID; timestamps cover DATE). */
export const ILP_KIND: Record<ColumnType, IlpKindValue> = {
  SYMBOL: IlpKind.Symbol,
  STRING: IlpKind.String,
  VARCHAR: IlpKind.String,
  CHAR: IlpKind.String,
  UUID: IlpKind.String,
  DOUBLE: IlpKind.Float,
  FLOAT: IlpKind.Float,
  LONG: IlpKind.Int,
  INT: IlpKind.Int,
  SHORT: IlpKind.Int,
  BYTE: IlpKind.Int,
  BOOLEAN: IlpKind.Boolean,
  TIMESTAMP: IlpKind.Timestamp,
  DATE: IlpKind.Timestamp,
};

const NEEDS_ESCAPE = /[ ,=\\\r\n]/;
const NEEDS_ESCAPE_G = /[ ,=\\\r\n]/g;
const QUOTED_NEEDS_ESCAPE = /["\\\r\n]/;
const QUOTED_NEEDS_ESCAPE_G = /["\\\r\n]/g;

/** A table name, column name or symbol value as ILP writes it outside quotes. */
export function escapeName(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(NEEDS_ESCAPE_G, "\\$&") : s;
}

/** A string field's content, inside its double quotes. */
export function escapeQuoted(s: string): string {
  return QUOTED_NEEDS_ESCAPE.test(s) ? s.replace(QUOTED_NEEDS_ESCAPE_G, "\\$&") : s;
}

const utf8 = new TextEncoder();
const SPACE = 0x20;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CR = 0x0d;
const LF = 0x0a;
const ZERO = 0x30;
const MINUS = 0x2d;
/** Most fraction digits shortDecimal tries before String(v) (1e9 · 10^6 stays below 2^50). */
const SHORT_DECIMALS = 6;
/** Room reserved per value that is not a string: the longest number text plus its suffix. */
const NUMBER_ROOM = 32;

interface Column {
  /** Index of the value in the canonical row. */
  i: number;
  kind: IlpKindValue;
  /** `name=`, escaped, as UTF-8; the separator before it is chosen per row. */
  name: Uint8Array;
}

export class IlpTableEncoder {
  private readonly symbols: Column[];
  private readonly fields: Column[];
  private readonly prefix: Uint8Array;
  /** Bytes one row needs at most besides its string values' own (see append). */
  private readonly rowRoom: number;
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array(1 << 16);
  private pos = 0;
  private rows = 0;

  /**
   * `columns` in table order; `designated` is the index of the designated timestamp, which
   * closes every line. Symbols are written first, as ILP requires.
   */
  constructor(
    table: string,
    columns: readonly { name: string; type: ColumnType }[],
    private readonly designated: number,
  ) {
    this.prefix = utf8.encode(escapeName(table));
    const all = columns.map((c, i) => ({ i, kind: ILP_KIND[c.type], name: utf8.encode(`${escapeName(c.name)}=`) }));
    this.symbols = all.filter((c) => c.kind === IlpKind.Symbol);
    this.fields = all.filter((c) => c.kind !== IlpKind.Symbol && c.i !== designated);
    this.rowRoom = this.prefix.length + all.reduce((n, c) => n + c.name.length + 1 + NUMBER_ROOM, 0) + NUMBER_ROOM + 2;
  }

  get pending(): number {
    return this.rows;
  }

  /**
   * Appends one row. The caller has checked it (RowConverter): values match their columns,
   * the designated timestamp is set, and at least one other value is.
   */
  append(values: readonly CanonicalValue[]): void {
    // Room for everything but string contents up front; each string reserves its own.
    this.ensure(this.rowRoom);
    this.bytes(this.prefix);
    for (let k = 0; k < this.symbols.length; k++) {
      const c = this.symbols[k]!;
      const v = values[c.i];
      if (v === null || v === undefined) continue;
      this.buf[this.pos++] = COMMA;
      this.bytes(c.name);
      this.name(v as string);
    }
    let sep = SPACE;
    for (let k = 0; k < this.fields.length; k++) {
      const c = this.fields[k]!;
      const v = values[c.i];
      if (v === null || v === undefined) continue;
      this.buf[this.pos++] = sep;
      sep = COMMA;
      this.bytes(c.name);
      switch (c.kind) {
        case IlpKind.Float:
          this.float(v as number);
          break;
        case IlpKind.Int:
          this.integer(v as number);
          this.buf[this.pos++] = 0x69; // i
          break;
        case IlpKind.String:
          this.quoted(v as string);
          break;
        case IlpKind.Boolean:
          this.buf[this.pos++] = v ? 0x74 : 0x66; // t / f
          break;
        default:
          this.micros(v as bigint);
          this.buf[this.pos++] = 0x74; // t
      }
    }
    // The designated timestamp in nanoseconds: its microseconds followed by "000".
    this.buf[this.pos++] = SPACE;
    this.micros(values[this.designated] as bigint);
    this.buf[this.pos++] = ZERO;
    this.buf[this.pos++] = ZERO;
    this.buf[this.pos++] = ZERO;
    this.buf[this.pos++] = LF;
    this.rows++;
  }

  /**
   * The pending rows as one request body (UTF-8); the encoder is empty afterwards. The bytes
   * are a view of the encoder's buffer, valid until the next append: send them before that.
   */
  take(): Uint8Array<ArrayBuffer> {
    const body = this.buf.subarray(0, this.pos);
    this.pos = 0;
    this.rows = 0;
    return body;
  }

  /** Drops the pending rows (a refused batch is never sent half-built). */
  reset(): void {
    this.pos = 0;
    this.rows = 0;
  }

  private ensure(room: number): void {
    if (this.pos + room <= this.buf.length) return;
    // Fourfold: a 50,000-row batch (a few MB) is reached in a few copies from the first 64 KiB.
    const grown = new Uint8Array(Math.max(this.buf.length * 4, this.pos + room));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }

  /** A short precomputed piece: a loop beats set() at these lengths. */
  private bytes(b: Uint8Array): void {
    const buf = this.buf;
    let p = this.pos;
    for (let j = 0; j < b.length; j++) buf[p++] = b[j]!;
    this.pos = p;
  }

  /** A symbol value, escaped as a name. */
  private name(s: string): void {
    // At most 3 bytes per UTF-16 unit once encoded (an escaped ASCII character takes 2), and
    // again the row's fixed room: what append reserved is behind this string's end.
    this.ensure(s.length * 3 + this.rowRoom);
    const buf = this.buf;
    let p = this.pos;
    for (let j = 0; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c >= 0x80) {
        this.pos = p;
        this.utf8(escapeName(s.slice(j)));
        return;
      }
      if (c === SPACE || c === COMMA || c === EQUALS || c === BACKSLASH || c === CR || c === LF) buf[p++] = BACKSLASH;
      buf[p++] = c;
    }
    this.pos = p;
  }

  /** A string field: its escaped content in double quotes. */
  private quoted(s: string): void {
    this.ensure(s.length * 3 + 2 + this.rowRoom);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let j = 0; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c >= 0x80) {
        this.pos = p;
        this.utf8(escapeQuoted(s.slice(j)));
        this.buf[this.pos++] = QUOTE;
        return;
      }
      if (c === QUOTE || c === BACKSLASH || c === CR || c === LF) buf[p++] = BACKSLASH;
      buf[p++] = c;
    }
    buf[p++] = QUOTE;
    this.pos = p;
  }

  /** Text with non-ASCII characters (room already reserved); lone surrogates become U+FFFD, as fetch encodes them. */
  private utf8(s: string): void {
    this.pos += utf8.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** A DOUBLE/FLOAT value as String(v) writes it (shortest round-trip; -0 is "0"). */
  private float(v: number): void {
    if (Number.isSafeInteger(v)) {
      this.integer(v);
      return;
    }
    if (this.shortDecimal(v)) return;
    // Fractions, exponents, Infinity: the engine's own formatting, ASCII only.
    const s = String(v);
    const buf = this.buf;
    let p = this.pos;
    for (let j = 0; j < s.length; j++) buf[p++] = s.charCodeAt(j);
    this.pos = p;
  }

  /**
   * Writes v when 1 <= |v| < 1e9 and String(v) has at most SHORT_DECIMALS fraction digits
   * (prices, mostly); false, writing nothing, otherwise. Why it is String(v): for a decimal
   * m / 10^k that rounds to v, |m - v·10^k| <= 10^k·ulp(v) <= 2^-2 here (v·10^k < 2^50), and
   * the product v·10^k is off by at most 2^-3, so Math.round finds m; `m / p === v` (both
   * exact, one rounding) is then exactly "m / 10^k reads back as v". The first k that passes
   * is the fewest fraction digits, hence the fewest significant digits (|v| >= 1 fixes the
   * integer digits), and m is the only such decimal (two would be 10^-k apart, more than
   * ulp(v)): the one ECMAScript's Number::toString writes, in fixed notation below 1e21.
   */
  private shortDecimal(v: number): boolean {
    const a = v < 0 ? -v : v;
    if (!(a >= 1 && a < 1e9)) return false;
    let p = 10;
    for (let k = 1; k <= SHORT_DECIMALS; k++, p *= 10) {
      const m = Math.round(a * p);
      if (m / p !== a) continue;
      // m / 10^k and v have the same integer part (no integer lies between two values that
      // round to the same non-integer double), so the fraction is exact without a modulo.
      const whole = Math.floor(a);
      let f = (m - whole * p) | 0;
      if (v < 0) this.buf[this.pos++] = MINUS;
      this.digits(whole);
      const buf = this.buf;
      buf[this.pos] = 0x2e; // .
      let at = this.pos + k + 1;
      this.pos = at;
      for (let j = 0; j < k; j++) {
        const q = (f / 10) | 0;
        buf[--at] = ZERO + f - q * 10;
        f = q;
      }
      return true;
    }
    return false;
  }

  /** Epoch microseconds (a bigint) as decimal digits. */
  private micros(us: bigint): void {
    // Number() is exact within ±2^53 (years 1684..2255); past that, the bigint's own text.
    const n = Number(us);
    if (Number.isSafeInteger(n)) {
      this.integer(n);
      return;
    }
    const s = us.toString();
    const buf = this.buf;
    let p = this.pos;
    for (let j = 0; j < s.length; j++) buf[p++] = s.charCodeAt(j);
    this.pos = p;
  }

  /** A safe integer as String(v) writes it, digit by digit with 32-bit arithmetic. */
  private integer(v: number): void {
    if (v < 0) {
      this.buf[this.pos++] = MINUS;
      v = -v;
    }
    if (v < 1e9) {
      this.digits(v);
      return;
    }
    // Two parts below 1e9. The floor is exact: v < 2^53 puts v / 1e9 below 2^24, where a
    // double's spacing is at most 2^-29 (1.9e-9), while a quotient that is not an integer lies
    // at least 1e-9 below the next one, more than half a spacing: it never rounds up to it.
    const high = Math.floor(v / 1e9);
    const low = v - high * 1e9;
    this.digits(high);
    // The low part, zero-padded to nine digits, from the last digit back.
    const buf = this.buf;
    let p = this.pos + 9;
    this.pos = p;
    let n = low | 0;
    for (let j = 0; j < 9; j++) {
      const q = (n / 10) | 0;
      buf[--p] = ZERO + n - q * 10;
      n = q;
    }
  }

  /** 0 <= n < 1e9 without leading zeros. */
  private digits(n: number): void {
    let x = n | 0;
    const len =
      x < 10
        ? 1
        : x < 100
          ? 2
          : x < 1000
            ? 3
            : x < 10000
              ? 4
              : x < 100000
                ? 5
                : x < 1000000
                  ? 6
                  : x < 10000000
                    ? 7
                    : x < 100000000
                      ? 8
                      : 9;
    const buf = this.buf;
    let p = this.pos + len;
    this.pos = p;
    do {
      const q = (x / 10) | 0;
      buf[--p] = ZERO + x - q * 10;
      x = q;
    } while (x > 0);
  }
}
