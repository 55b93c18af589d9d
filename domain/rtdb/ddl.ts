/**
 * Parser for the QuestDB CREATE TABLE subset of spec 4.8:
 *
 *   CREATE TABLE [IF NOT EXISTS] name ( column, ... ) TIMESTAMP(col) PARTITION BY DAY|HOUR|MONTH WAL [;]
 *   column := name type
 *   type   := SYMBOL [CAPACITY n] [CACHE|NOCACHE] [INDEX [CAPACITY n]]
 *           | DOUBLE | LONG | INT | SHORT | BYTE | FLOAT | BOOLEAN | STRING | VARCHAR
 *           | TIMESTAMP | DATE | CHAR | UUID
 *
 * A tokenizer feeds a recursive-descent parser; keywords are case-insensitive and
 * contextual (a column may be called `timestamp`). Identifiers are bare words or
 * double-quoted ("" escapes a quote) and must match TABLE_NAME_PATTERN once unquoted.
 * Every refusal names the offending token and its 0-based character position, as
 * QuestDB's own errors do, and is thrown as a section 7 validation error on body.sql.
 */
import { AppError } from "../errors.ts";
import {
  COLUMN_TYPES,
  type ColumnSpec,
  type ColumnType,
  DEFAULT_INDEX_CAPACITY,
  DEFAULT_SYMBOL_CAPACITY,
  PARTITION_UNITS,
  type PartitionBy,
  type SymbolOptions,
  TABLE_NAME_PATTERN,
  type TableSpec,
} from "./table-spec.ts";

type TokenKind = "word" | "quoted" | "number" | "punct" | "end";
interface Token {
  kind: TokenKind;
  /** Unquoted text for identifiers; the character for punctuation. */
  value: string;
  /** The token as written, for messages. */
  raw: string;
  pos: number;
}

/** QuestDB's limits: symbol capacity 2..2^30, at most 2048 columns. */
const MAX_CAPACITY = 1 << 30;
const MAX_COLUMNS = 2048;

export class DdlError extends Error {
  override readonly name = "DdlError";
  constructor(
    message: string,
    readonly position: number,
    readonly token: string,
  ) {
    super(message);
  }
}

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "-" && sql[i + 1] === "-") {
      while (i < sql.length && sql[i] !== "\n") i++;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i))![0];
      out.push({ kind: "word", value: m, raw: m, pos: i });
      i += m.length;
    } else if (/[0-9]/.test(ch)) {
      const m = /^[0-9]+/.exec(sql.slice(i))![0];
      if (/[A-Za-z_]/.test(sql[i + m.length] ?? "")) {
        throw new DdlError(`invalid number at position ${i}, found '${sql.slice(i, i + m.length + 1)}'`, i, m);
      }
      out.push({ kind: "number", value: m, raw: m, pos: i });
      i += m.length;
    } else if (ch === '"') {
      let j = i + 1;
      let value = "";
      for (;;) {
        if (j >= sql.length) throw new DdlError(`unterminated quoted identifier at position ${i}`, i, sql.slice(i));
        if (sql[j] === '"') {
          if (sql[j + 1] === '"') {
            value += '"';
            j += 2;
            continue;
          }
          break;
        }
        value += sql[j];
        j++;
      }
      out.push({ kind: "quoted", value, raw: sql.slice(i, j + 1), pos: i });
      i = j + 1;
    } else if ("(),;".includes(ch)) {
      out.push({ kind: "punct", value: ch, raw: ch, pos: i });
      i++;
    } else {
      throw new DdlError(`unexpected character at position ${i}, found '${ch}'`, i, ch);
    }
  }
  out.push({ kind: "end", value: "", raw: "end of statement", pos: sql.length });
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private fail(expected: string, t: Token = this.peek()): never {
    const found = t.kind === "end" ? "end of statement" : `'${t.raw}'`;
    throw new DdlError(`expected ${expected} at position ${t.pos}, found ${found}`, t.pos, t.raw);
  }

  private isWord(word: string, t: Token = this.peek()): boolean {
    return t.kind === "word" && t.value.toUpperCase() === word;
  }

  private acceptWord(word: string): boolean {
    if (!this.isWord(word)) return false;
    this.i++;
    return true;
  }

  private expectWord(word: string, expected = word): void {
    if (!this.acceptWord(word)) this.fail(expected);
  }

  private expectPunct(p: string): void {
    const t = this.peek();
    if (t.kind !== "punct" || t.value !== p) this.fail(`'${p}'`);
    this.i++;
  }

  private identifier(what: string): { name: string; token: Token } {
    const t = this.peek();
    if (t.kind !== "word" && t.kind !== "quoted") this.fail(what);
    if (!TABLE_NAME_PATTERN.test(t.value)) {
      throw new DdlError(
        `invalid ${what} at position ${t.pos}, found '${t.raw}': use letters, digits and underscores, ` +
          "starting with a letter or underscore, at most 127 characters",
        t.pos,
        t.raw,
      );
    }
    this.i++;
    return { name: t.value, token: t };
  }

  private capacity(what: string): number {
    const t = this.peek();
    if (t.kind !== "number") this.fail(`${what} (a number)`);
    const n = Number(t.value);
    if (!Number.isSafeInteger(n) || n < 2 || n > MAX_CAPACITY) {
      throw new DdlError(
        `${what} at position ${t.pos} must be between 2 and ${MAX_CAPACITY}, found '${t.raw}'`,
        t.pos,
        t.raw,
      );
    }
    this.i++;
    return 2 ** Math.ceil(Math.log2(n));
  }

  parse(): TableSpec {
    // tokens always ends with an "end" token, so tokens[1] exists.
    const [first, second] = [this.tokens[0]!, this.tokens[1] ?? this.tokens[0]!];
    if (!this.isWord("CREATE", first) || !this.isWord("TABLE", second)) {
      const t = this.isWord("CREATE", first) ? second : first;
      const found = t.kind === "end" ? "end of statement" : `'${t.raw}'`;
      throw new DdlError(
        `only CREATE TABLE statements are accepted: expected CREATE TABLE at position ${t.pos}, found ${found}`,
        t.pos,
        t.raw,
      );
    }
    this.i = 2;
    let ifNotExists = false;
    if (this.acceptWord("IF")) {
      this.expectWord("NOT", "NOT EXISTS");
      this.expectWord("EXISTS");
      ifNotExists = true;
    }
    const table = this.identifier("table name").name;
    this.expectPunct("(");
    const columns: ColumnSpec[] = [];
    const seen = new Set<string>();
    do {
      const { name, token } = this.identifier("column name");
      if (seen.has(name.toLowerCase())) {
        throw new DdlError(`duplicate column '${name}' at position ${token.pos}`, token.pos, token.raw);
      }
      if (columns.length === MAX_COLUMNS) {
        throw new DdlError(`too many columns at position ${token.pos}: at most ${MAX_COLUMNS}`, token.pos, token.raw);
      }
      seen.add(name.toLowerCase());
      columns.push(this.column(name));
    } while (this.acceptPunct(","));
    this.expectPunct(")");

    this.expectWord("TIMESTAMP", "TIMESTAMP(column)");
    this.expectPunct("(");
    const { name: designatedName, token: dt } = this.identifier("designated timestamp column");
    const designated = columns.find((c) => c.name.toLowerCase() === designatedName.toLowerCase());
    if (!designated) throw new DdlError(`unknown column '${dt.raw}' at position ${dt.pos}`, dt.pos, dt.raw);
    if (designated.type !== "TIMESTAMP") {
      throw new DdlError(
        `designated timestamp column '${dt.raw}' at position ${dt.pos} must be of type TIMESTAMP, not ${designated.type}`,
        dt.pos,
        dt.raw,
      );
    }
    this.expectPunct(")");

    this.expectWord("PARTITION", "PARTITION BY");
    this.expectWord("BY");
    const unit = this.peek();
    const partitionBy = unit.kind === "word" ? unit.value.toUpperCase() : "";
    if (!(PARTITION_UNITS as readonly string[]).includes(partitionBy)) this.fail("DAY, HOUR or MONTH");
    this.i++;
    this.expectWord("WAL");
    this.acceptPunct(";");
    if (this.peek().kind !== "end") this.fail("end of statement");
    return {
      name: table,
      ifNotExists,
      columns,
      designated: designated.name,
      partitionBy: partitionBy as PartitionBy,
      wal: true,
    };
  }

  private acceptPunct(p: string): boolean {
    const t = this.peek();
    if (t.kind !== "punct" || t.value !== p) return false;
    this.i++;
    return true;
  }

  private column(name: string): ColumnSpec {
    const t = this.peek();
    const type = t.kind === "word" ? t.value.toUpperCase() : "";
    if (!(COLUMN_TYPES as readonly string[]).includes(type)) this.fail(`a column type (${COLUMN_TYPES.join(", ")})`);
    this.i++;
    if (type !== "SYMBOL") return { name, type: type as ColumnType };
    const symbol: SymbolOptions = { capacity: DEFAULT_SYMBOL_CAPACITY, cached: true, index: null };
    if (this.acceptWord("CAPACITY")) symbol.capacity = this.capacity("symbol capacity");
    if (this.acceptWord("NOCACHE")) symbol.cached = false;
    else this.acceptWord("CACHE");
    if (this.acceptWord("INDEX")) {
      symbol.index = {
        capacity: this.acceptWord("CAPACITY") ? this.capacity("index capacity") : DEFAULT_INDEX_CAPACITY,
      };
    }
    return { name, type: "SYMBOL", symbol };
  }
}

/** Parses one statement of the subset; throws DdlError naming the offending token. */
export function parseCreateTable(sql: string): TableSpec {
  return new Parser(tokenize(sql)).parse();
}

/** The statement with keywords in upper case, defaults made explicit and IF NOT EXISTS dropped. */
export function normaliseDdl(spec: TableSpec): string {
  const cols = spec.columns.map((c) => {
    if (!c.symbol) return `${c.name} ${c.type}`;
    const s = c.symbol;
    const index = s.index ? ` INDEX CAPACITY ${s.index.capacity}` : "";
    return `${c.name} SYMBOL CAPACITY ${s.capacity} ${s.cached ? "CACHE" : "NOCACHE"}${index}`;
  });
  return `CREATE TABLE ${spec.name} (${cols.join(", ")}) TIMESTAMP(${spec.designated}) PARTITION BY ${spec.partitionBy} WAL`;
}

/** parseCreateTable for request bodies: a DdlError becomes the section 7 body on body.sql. */
export function parseCreateTableRequest(sql: string): TableSpec {
  try {
    return parseCreateTable(sql);
  } catch (err) {
    if (!(err instanceof DdlError)) throw err;
    throw AppError.validation([
      {
        loc: ["body", "sql"],
        msg: err.message,
        type: "ddl_invalid",
        input: sql,
        ctx: { position: err.position, token: err.token },
      },
    ]);
  }
}
