/**
 * The fence every planned statement passes before it runs, whoever planned it (the rules
 * planner or a language model): read-only, the tenant's namespace only, a row limit.
 *
 * SQL (the lakehouse, DuckDB or Spark behind the lab's gateway): a lexer (strings, quoted
 * identifiers, comments, numbers) turns the text into tokens, then
 * - one statement (a trailing `;` is dropped), starting with SELECT or WITH;
 * - no word that writes, administers or leaves the query (INSERT, UPDATE, DELETE, CREATE,
 *   DROP, ALTER, ATTACH, COPY, PRAGMA, SET, INSTALL, LOAD, CALL, EXPORT, ...), anywhere;
 * - no function that reads files, other databases or the engine's settings (`read_*`,
 *   `*_scan`, `glob`, `query_table`, `getenv`, `current_setting`, `duckdb_*`, ...);
 * - every table a FROM or JOIN names is a bare name: one of the namespace's tables or a CTE
 *   of the statement (no `schema.table`, no `namespace.table`, no table functions), and no
 *   name anywhere is qualified by a namespace, catalog or system schema;
 * - at most `maxRows` rows: a top-level LIMIT above it is refused, a statement without one
 *   gets `LIMIT maxRows + 1` (the caller keeps maxRows rows and says the answer was cut).
 * The gateway checks again (one SELECT, only the namespace's tables, its own row cap): this
 * is the first fence, and the one that explains itself.
 *
 * Cypher (the graph) goes through ../graph/cypher.ts checkReadQuery (read-only, one statement,
 * the model's labels only, every pattern anchored in the tenant) and the same row limit.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import { type CheckedReadQuery, checkReadQuery } from "../graph/cypher.ts";

export const MAX_STATEMENT_CHARS = 10_000;

interface Tok {
  kind: "word" | "qident" | "string" | "number" | "punct" | "param";
  text: string;
  /** word/qident: lower-case name. */
  value: string;
}

const FORBIDDEN_WORDS = new Set([
  "insert",
  "update",
  "delete",
  "merge",
  "upsert",
  "create",
  "drop",
  "alter",
  "truncate",
  "attach",
  "detach",
  "copy",
  "export",
  "import",
  "install",
  "load",
  "pragma",
  "set",
  "reset",
  "call",
  "grant",
  "revoke",
  "vacuum",
  "checkpoint",
  "use",
  "execute",
  "prepare",
  "begin",
  "commit",
  "rollback",
  "analyze",
  "refresh",
  "msck",
  "cache",
  "uncache",
  "into",
]);

const FORBIDDEN_FUNCTIONS = new Set([
  "glob",
  "query",
  "query_table",
  "getenv",
  "current_setting",
  "sniff_csv",
  "parquet_metadata",
  "parquet_schema",
  "iceberg_metadata",
  "iceberg_snapshots",
  "load_extension",
  "reflect",
  "java_method",
  "input_file_name",
]);

/** Schemas and catalogs a name may not be qualified by (and any tenant namespace). */
const SYSTEM_QUALIFIERS = new Set([
  "information_schema",
  "pg_catalog",
  "main",
  "system",
  "temp",
  "memory",
  "sqlite_master",
  "spark_catalog",
  "default",
  "global_temp",
]);

function issue(msg: string, input: unknown, loc: string[]): ValidationIssue {
  const shown = typeof input === "string" && input.length > 200 ? `${input.slice(0, 200)}…` : input;
  return { loc, msg, type: "value_error", input: shown, ctx: {} };
}

function refuse(msg: string, input: unknown, loc: string[]): never {
  throw AppError.validation([issue(msg, input, loc)]);
}

function lex(sql: string, loc: string[]): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "-" && sql[i + 1] === "-") {
      while (i < n && sql[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end < 0) refuse("unterminated comment", sql.slice(i, i + 40), loc);
      i = end + 2;
      continue;
    }
    const start = i;
    if (c === "'") {
      i++;
      for (;;) {
        if (i >= n) refuse("unterminated string", sql.slice(start, start + 40), loc);
        if (sql[i] === "'") {
          if (sql[i + 1] === "'") {
            i += 2;
            continue;
          }
          break;
        }
        if (sql[i] === "\\") refuse("backslashes are not allowed in string literals", sql.slice(start, i + 2), loc);
        i++;
      }
      i++;
      out.push({ kind: "string", text: sql.slice(start, i), value: "" });
    } else if (c === '"' || c === "`") {
      i++;
      while (i < n && sql[i] !== c) i++;
      if (i >= n) refuse("unterminated quoted name", sql.slice(start, start + 40), loc);
      const name = sql.slice(start + 1, i);
      i++;
      if (!/^[A-Za-z_][A-Za-z0-9_ ]{0,127}$/.test(name)) refuse("a quoted name must be a plain name", name, loc);
      out.push({ kind: "qident", text: sql.slice(start, i), value: name.toLowerCase() });
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql[i + 1] ?? ""))) {
      while (i < n && /[0-9.eE]/.test(sql[i] as string)) {
        if ((sql[i] === "e" || sql[i] === "E") && (sql[i + 1] === "-" || sql[i + 1] === "+")) i++;
        i++;
      }
      out.push({ kind: "number", text: sql.slice(start, i), value: sql.slice(start, i) });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < n && /[A-Za-z0-9_$]/.test(sql[i] as string)) i++;
      const w = sql.slice(start, i);
      out.push({ kind: "word", text: w, value: w.toLowerCase() });
    } else if (c === "$" || c === "?") {
      refuse("parameters are not allowed in a planned statement", c, loc);
    } else if ("(),.;*+-/%<>=!|:[]{}".includes(c)) {
      const two = sql.slice(i, i + 2);
      const p = ["<=", ">=", "<>", "!=", "||", "::"].includes(two) ? two : c;
      i += p.length;
      out.push({ kind: "punct", text: p, value: p });
    } else {
      const shown = c.charCodeAt(0) < 0x20 || c.charCodeAt(0) > 0x7e ? `U+${c.charCodeAt(0).toString(16)}` : c;
      refuse(`character ${shown} is not allowed outside a string`, shown, loc);
    }
  }
  return out;
}

const isName = (t: Tok | undefined): boolean => t?.kind === "word" || t?.kind === "qident";
const isP = (t: Tok | undefined, p: string) => t?.kind === "punct" && t.value === p;
const isW = (t: Tok | undefined, w: string) => t?.kind === "word" && t.value === w;

/** Words that may follow a table reference instead of an alias. */
const AFTER_TABLE = new Set([
  "where",
  "join",
  "inner",
  "left",
  "right",
  "full",
  "cross",
  "natural",
  "on",
  "using",
  "group",
  "order",
  "limit",
  "offset",
  "having",
  "union",
  "intersect",
  "except",
  "window",
  "qualify",
  "positional",
  "asof",
  "anti",
  "semi",
  "lateral",
  "tablesample",
]);

/** Words after which `(` opens a list or subquery, not a function call (kept apart when re-emitted). */
const KEYWORDS_BEFORE_PAREN = new Set([
  "in",
  "from",
  "join",
  "as",
  "and",
  "or",
  "not",
  "exists",
  "on",
  "select",
  "where",
  "over",
]);

export interface CheckedSql {
  /** The statement that runs: the planned one, a LIMIT added when it had none. */
  sql: string;
  /** The namespace tables it reads. */
  tables: string[];
  /** The most rows the caller keeps (the statement may return one more: the answer was cut). */
  maxRows: number;
}

/**
 * Checks a planned SQL statement against the namespace's tables (lower-case names); throws
 * AppError.validation (422) naming the fault. `loc` names the statement in the issue.
 */
export function checkSql(statement: string, tables: readonly string[], maxRows: number, loc = ["sql"]): CheckedSql {
  if (statement.length > MAX_STATEMENT_CHARS) {
    refuse(`the statement is longer than ${MAX_STATEMENT_CHARS} characters`, statement.length, loc);
  }
  let toks = lex(statement, loc);
  while (isP(toks[toks.length - 1], ";")) toks = toks.slice(0, -1);
  if (toks.length === 0) refuse("the statement is empty", statement, loc);
  if (toks.some((t) => isP(t, ";"))) refuse("one statement only", statement, loc);
  if (!isW(toks[0], "select") && !isW(toks[0], "with")) {
    refuse("only read-only SELECT statements may run", toks[0]?.text, loc);
  }
  const known = new Set(tables.map((t) => t.toLowerCase()));
  // CTE names: WITH [RECURSIVE] name [(cols)] AS (...), name AS (...)
  const ctes = new Set<string>();
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    if (isName(t) && isW(toks[i + 1], "as") && isP(toks[i + 2], "(")) ctes.add(t.value);
    if (isName(t) && isP(toks[i + 1], "(") && (isW(toks[i - 1], "with") || isP(toks[i - 1], ","))) {
      // name (col, ...) AS ( : a CTE with a column list
      let j = i + 2;
      while (j < toks.length && !isP(toks[j], ")")) j++;
      if (isW(toks[j + 1], "as") && isP(toks[j + 2], "(")) ctes.add(t.value);
    }
  }
  const read = new Set<string>();
  let depth = 0;
  let topLimit: { at: number } | null = null;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i] as Tok;
    if (isP(t, "(")) depth++;
    if (isP(t, ")")) depth--;
    if (depth < 0) refuse("unbalanced parentheses", statement, loc);
    if (t.kind === "word" && FORBIDDEN_WORDS.has(t.value)) {
      refuse(`'${t.text}' is not allowed: planned statements only read`, t.text, loc);
    }
    if (isName(t) && isP(toks[i + 1], "(")) {
      const f = t.value;
      if (
        FORBIDDEN_FUNCTIONS.has(f) ||
        f.startsWith("read_") ||
        f.endsWith("_scan") ||
        f.startsWith("duckdb_") ||
        f.startsWith("pg_") ||
        f.startsWith("sqlite_") ||
        f.startsWith("iceberg_") ||
        f.startsWith("delta_")
      ) {
        refuse(`function '${t.text}' is not allowed: it reads outside the tenant's tables`, t.text, loc);
      }
    }
    if (isName(t) && isP(toks[i + 1], ".")) {
      if (SYSTEM_QUALIFIERS.has(t.value) || t.value.startsWith("svc_") || t.value.startsWith("svc_tenant")) {
        refuse(`names may not be qualified by '${t.text}': only the tenant's own tables`, t.text, loc);
      }
      if (isName(toks[i + 2]) && isP(toks[i + 3], ".")) {
        refuse("three-part names are not allowed: only the tenant's own tables", t.text, loc);
      }
    }
    if (isW(t, "limit") && depth === 0) topLimit = { at: i };
    if (isW(t, "from") || isW(t, "join")) {
      // FROM a [AS] x, b [AS] y ... / JOIN a [AS] x
      let j = i + 1;
      for (;;) {
        const next = toks[j];
        if (isP(next, "(")) break; // a subquery: its own FROMs are checked where they stand
        if (!next || !isName(next)) refuse("a FROM or JOIN must name a table", next?.text ?? "", loc);
        const ref = next as Tok;
        if (isP(toks[j + 1], ".")) {
          refuse(
            `'${ref.text}.${toks[j + 2]?.text ?? ""}': tables are named bare, in the tenant's namespace`,
            ref.text,
            loc,
          );
        }
        if (isP(toks[j + 1], "(")) refuse(`table function '${ref.text}' is not allowed`, ref.text, loc);
        if (!known.has(ref.value) && !ctes.has(ref.value)) {
          refuse(`no table '${ref.text}' in the tenant's namespace`, ref.text, loc);
        }
        if (known.has(ref.value) && !ctes.has(ref.value)) read.add(ref.value);
        j++;
        if (isW(toks[j], "as")) j++;
        if (isName(toks[j]) && !(toks[j]?.kind === "word" && AFTER_TABLE.has((toks[j] as Tok).value))) j++;
        if (isW(t, "from") && isP(toks[j], ",")) {
          j++;
          continue;
        }
        break;
      }
    }
  }
  if (depth !== 0) refuse("unbalanced parentheses", statement, loc);
  // Re-emitted from the tokens (comments dropped, so an added LIMIT cannot be commented out).
  let sql = "";
  toks.forEach((t, k) => {
    const prev = toks[k - 1];
    const tight =
      k === 0 ||
      isP(t, ".") ||
      isP(t, ")") ||
      isP(t, ",") ||
      isP(prev, ".") ||
      isP(prev, "(") ||
      (isP(t, "(") && prev?.kind === "word" && !KEYWORDS_BEFORE_PAREN.has(prev.value));
    const glue = tight ? "" : " ";
    sql += glue + t.text;
  });
  if (topLimit) {
    const n = toks[topLimit.at + 1];
    if (n?.kind !== "number" || !/^[0-9]+$/.test(n.value)) refuse("LIMIT must be a whole number", n?.text, loc);
    if (Number(n.value) > maxRows)
      refuse(`LIMIT ${n.value} is above the row limit of ${maxRows}`, Number(n.value), loc);
  } else {
    sql = `${sql} LIMIT ${maxRows + 1}`;
  }
  return { sql, tables: [...read].sort(), maxRows };
}

/** Checks a planned Cypher read (../graph/cypher.ts); throws AppError.validation (422). */
export function checkCypher(statement: string, loc = ["cypher"]): CheckedReadQuery {
  if (statement.length > MAX_STATEMENT_CHARS) {
    refuse(`the statement is longer than ${MAX_STATEMENT_CHARS} characters`, statement.length, loc);
  }
  return checkReadQuery(statement, loc);
}
