/**
 * The previous ILP encoder (string concatenation, one JS string per batch, UTF-8 encoded by
 * fetch), kept unchanged as the oracle of ilp.test.ts: the byte encoder in
 * ilp.ts must write exactly the UTF-8 of what this one builds, on randomized rows too. Not
 * used on the ingest path.
 */
import type { CanonicalValue, ColumnType } from "../../domain/rtdb/index.ts";
// The type mapping is shared (it is what the two encoders agree on, not what they encode);
// every byte-level step below stays this file's own.
import { ILP_KIND, IlpKind, type IlpKindValue } from "./ilp.ts";

const NEEDS_ESCAPE = /[ ,=\\\r\n]/;
const NEEDS_ESCAPE_G = /[ ,=\\\r\n]/g;
const QUOTED_NEEDS_ESCAPE = /["\\\r\n]/;
const QUOTED_NEEDS_ESCAPE_G = /["\\\r\n]/g;

/** A table name, column name or symbol value as ILP writes it outside quotes. */
function escapeName(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(NEEDS_ESCAPE_G, "\\$&") : s;
}

/** A string field's content, inside its double quotes. */
function escapeQuoted(s: string): string {
  return QUOTED_NEEDS_ESCAPE.test(s) ? s.replace(QUOTED_NEEDS_ESCAPE_G, "\\$&") : s;
}

interface Column {
  /** Index of the value in the canonical row. */
  i: number;
  kind: IlpKindValue;
  /** `,name=` — the separator is chosen per row (the first field after the symbols takes a space). */
  name: string;
}

export class IlpTextEncoder {
  private readonly symbols: Column[];
  private readonly fields: Column[];
  private readonly prefix: string;
  private body = "";
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
    this.prefix = escapeName(table);
    const all = columns.map((c, i) => ({ i, kind: ILP_KIND[c.type], name: `${escapeName(c.name)}=` }));
    this.symbols = all.filter((c) => c.kind === IlpKind.Symbol);
    this.fields = all.filter((c) => c.kind !== IlpKind.Symbol && c.i !== designated);
  }

  get pending(): number {
    return this.rows;
  }

  /**
   * Appends one row. The caller has checked it (RowConverter): values match their columns,
   * the designated timestamp is set, and at least one other value is.
   */
  append(values: readonly CanonicalValue[]): void {
    let line = this.prefix;
    for (let k = 0; k < this.symbols.length; k++) {
      const c = this.symbols[k]!;
      const v = values[c.i];
      if (v === null || v === undefined) continue;
      line += `,${c.name}${escapeName(v as string)}`;
    }
    let sep = " ";
    for (let k = 0; k < this.fields.length; k++) {
      const c = this.fields[k]!;
      const v = values[c.i];
      if (v === null || v === undefined) continue;
      line += sep + c.name;
      sep = ",";
      switch (c.kind) {
        case IlpKind.Float:
          line += String(v);
          break;
        case IlpKind.Int:
          line += `${v}i`;
          break;
        case IlpKind.String:
          line += `"${escapeQuoted(v as string)}"`;
          break;
        case IlpKind.Boolean:
          line += v ? "t" : "f";
          break;
        default:
          line += `${v}t`;
      }
    }
    // The designated timestamp in nanoseconds (microseconds × 1000, as text: no BigInt math).
    this.body += `${line} ${values[this.designated]}000\n`;
    this.rows++;
  }

  /** The pending rows as one request body; the encoder is empty afterwards. */
  take(): string {
    const body = this.body;
    this.body = "";
    this.rows = 0;
    return body;
  }

  /** Drops the pending rows (a refused batch is never sent half-built). */
  reset(): void {
    this.body = "";
    this.rows = 0;
  }
}
