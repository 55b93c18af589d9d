/**
 * Dataset spec (2.6) -> SQL, for both engines that build datasets: Spark SQL over Iceberg
 * (the statement the build returns, spec 4.9) and DuckDB over the same tables (the embedded
 * profile). One logical plan, two renderings, so both engines produce the same rows.
 *
 * Nothing the caller wrote reaches SQL as text:
 *  - every table is looked up in the tenant's namespace (the caller cannot name another
 *    namespace: a name is a bare identifier that must be one of the namespace's tables);
 *  - every column is looked up in its table's schema; aliases and output names must be plain
 *    identifiers; all of them are quoted anyway;
 *  - every filter value is parsed as the column's real type and rendered as a typed literal
 *    (strings escaped for each dialect), never spliced;
 *  - operators, aggregations and windows come from fixed lists.
 * Any problem is a validation error (422) with the spec section 7 body, one issue per fault.
 */
import { AppError, type ValidationIssue } from "../errors.ts";
import type { LakehouseColumn } from "../lakehouse/ports.ts";
import {
  type DatasetSpec,
  FILTER_OPS,
  type FilterOp,
  type GraphFeatureSpec,
  REALTIME_AGGS,
  type RealtimeColSpec,
} from "./dataset.ts";

/** Identifiers a caller may write: aliases, output columns (tables and columns must also exist). */
import {
  baseType,
  type Dialect,
  listValues,
  MAX_IN_VALUES,
  MAX_VALUE_CHARS,
  NUMERIC,
  quoteIdent,
  stringLiteral,
  typedLiteral,
  windowMs,
} from "./sql-literals.ts";

export * from "./sql-literals.ts";

export const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** A feature relation the build adds: `key` (string) -> `value`, LEFT JOINed on a dataset column. */
export interface FeatureRelation {
  /** `__graph_<i>` or `__rt_<i>`. */
  name: string;
  kind: "graph" | "realtime";
  /** Index in the spec's graph_features or realtime_cols. */
  index: number;
  output_column: string;
  /** The dataset column (alias-qualified) holding the entity key. */
  key: { alias: string; column: string };
}

export interface RealtimeFeature {
  index: number;
  table: string;
  column: string;
  agg: string;
  windowMs: number;
  keyColumn: string;
  output_column: string;
}

export interface CompiledDataset {
  /** The Spark statement of the spec's form (returned by the build). */
  sql: string;
  /** The SELECT alone, per dialect. */
  select: Record<Dialect, string>;
  /** The namespace tables read. */
  tables: string[];
  /** Output columns in order (features last). */
  columns: string[];
  relations: FeatureRelation[];
  realtime: RealtimeFeature[];
}

interface Source {
  table: string;
  alias: string;
  schema: Map<string, LakehouseColumn>;
  selected: string[];
}

/** Everything the compiler needs to know about the tenant. */
export interface CompileContext {
  namespace: string;
  output_table: string;
  /** The namespace's tables and their columns. */
  schemas: Record<string, LakehouseColumn[]>;
  /** The key property of a graph label (Company -> cik); throws validation for an unknown label. */
  graphKey?: (label: string, loc: (string | number)[]) => string;
  /** Checks a graph feature's fragment; throws validation. */
  checkGraph?: (f: GraphFeatureSpec, loc: (string | number)[]) => void;
}

function issue(loc: (string | number)[], msg: string, input: unknown, type = "value_error"): ValidationIssue {
  const shown = typeof input === "string" && input.length > 200 ? `${input.slice(0, 200)}…` : input;
  return { loc: loc.map(String), msg, type, input: shown, ctx: {} };
}

function normaliseOp(op: string): FilterOp | null {
  const o = op.trim().toLowerCase().replace(/\s+/g, " ");
  const aliases: Record<string, FilterOp> = {
    "==": "=",
    "<>": "!=",
    eq: "=",
    ne: "!=",
    lt: "<",
    lte: "<=",
    gt: ">",
    gte: ">=",
    not_in: "not in",
    is_null: "is null",
    is_not_null: "is not null",
  };
  const found = aliases[o] ?? o;
  return (FILTER_OPS as readonly string[]).includes(found) ? (found as FilterOp) : null;
}

/** Compiles the spec against the tenant's catalog; throws AppError.validation listing every fault. */
export function compileDataset(spec: DatasetSpec, ctx: CompileContext): CompiledDataset {
  const issues: ValidationIssue[] = [];
  const fail = (loc: (string | number)[], msg: string, input: unknown) =>
    issues.push(issue(["body", ...loc], msg, input));

  // -- sources ------------------------------------------------------------------------------
  const sources: Source[] = [];
  const byRef = new Map<string, Source>();
  if (spec.source_tables.length === 0) fail(["source_tables"], "at least one source table is required", []);
  spec.source_tables.forEach((st, i) => {
    const cols = ctx.schemas[st.table];
    if (!IDENT_RE.test(st.table) || !cols) {
      fail(["source_tables", i, "table"], `no table '${st.table}' in the tenant's lakehouse namespace`, st.table);
      return;
    }
    const alias = st.alias ?? st.table;
    if (!IDENT_RE.test(alias)) {
      fail(["source_tables", i, "alias"], `alias must match ${IDENT_RE}`, alias);
      return;
    }
    if (byRef.has(alias.toLowerCase())) {
      fail(["source_tables", i, "alias"], `alias '${alias}' is used twice`, alias);
      return;
    }
    const schema = new Map(cols.map((c) => [c.name.toLowerCase(), c]));
    const selected: string[] = [];
    (st.columns ?? []).forEach((c, j) => {
      const col = schema.get(c.toLowerCase());
      if (!col) fail(["source_tables", i, "columns", j], `table '${st.table}' has no column '${c}'`, c);
      else if (!selected.includes(col.name)) selected.push(col.name);
    });
    const src: Source = {
      table: st.table,
      alias,
      schema,
      selected: selected.length ? selected : cols.map((c) => c.name),
    };
    sources.push(src);
    byRef.set(alias.toLowerCase(), src);
    if (!byRef.has(st.table.toLowerCase())) byRef.set(st.table.toLowerCase(), src);
  });

  /** `alias.col`, `table.col` or a bare column found in exactly one source. */
  const resolveColumn = (ref: string, loc: (string | number)[]): { src: Source; col: LakehouseColumn } | null => {
    const dot = ref.indexOf(".");
    if (dot >= 0) {
      const src = byRef.get(ref.slice(0, dot).toLowerCase());
      const col = src?.schema.get(ref.slice(dot + 1).toLowerCase());
      if (!src || !col) {
        fail(loc, `no column '${ref}' in the dataset's source tables`, ref);
        return null;
      }
      return { src, col };
    }
    const hits = sources.flatMap((src) => {
      const col = src.schema.get(ref.toLowerCase());
      return col ? [{ src, col }] : [];
    });
    if (hits.length === 1) return hits[0] ?? null;
    // Several tables have it, but only one puts it in the output: that one is meant.
    const selected = hits.filter((h) => h.src.selected.includes(h.col.name));
    if (selected.length === 1) return selected[0] ?? null;
    fail(
      loc,
      hits.length ? `column '${ref}' is ambiguous: write alias.column` : `no column '${ref}' in the source tables`,
      ref,
    );
    return null;
  };

  // -- joins --------------------------------------------------------------------------------
  const base = sources[0];
  const inScope = new Set<Source>(base ? [base] : []);
  const joinClauses: {
    src: Source;
    left: { src: Source; col: LakehouseColumn };
    right: { src: Source; col: LakehouseColumn };
  }[] = [];
  (spec.joins ?? []).forEach((j, i) => {
    const left = byRef.get(j.left_table.toLowerCase());
    const right = byRef.get(j.right_table.toLowerCase());
    if (!left)
      fail(["joins", i, "left_table"], `'${j.left_table}' is not one of the dataset's source tables`, j.left_table);
    if (!right)
      fail(["joins", i, "right_table"], `'${j.right_table}' is not one of the dataset's source tables`, j.right_table);
    if (!left || !right) return;
    if (!inScope.has(left)) {
      fail(
        ["joins", i, "left_table"],
        `'${j.left_table}' is not joined yet: join it before joining to it`,
        j.left_table,
      );
      return;
    }
    if (inScope.has(right)) {
      fail(["joins", i, "right_table"], `'${j.right_table}' is already part of the dataset`, j.right_table);
      return;
    }
    const lc = left.schema.get(j.left_col.toLowerCase());
    const rc = right.schema.get(j.right_col.toLowerCase());
    if (!lc) fail(["joins", i, "left_col"], `table '${left.table}' has no column '${j.left_col}'`, j.left_col);
    if (!rc) fail(["joins", i, "right_col"], `table '${right.table}' has no column '${j.right_col}'`, j.right_col);
    if (!lc || !rc) return;
    if (!comparable(lc.type, rc.type)) {
      fail(
        ["joins", i, "right_col"],
        `cannot join ${lc.type} column '${lc.name}' to ${rc.type} column '${rc.name}'`,
        j.right_col,
      );
      return;
    }
    inScope.add(right);
    joinClauses.push({ src: right, left: { src: left, col: lc }, right: { src: right, col: rc } });
  });
  sources.forEach((src, i) => {
    if (!inScope.has(src) && issues.length === 0) {
      fail(["source_tables", i, "table"], `source '${src.alias}' is not joined: add a join for it`, src.table);
    }
  });

  // -- output columns -----------------------------------------------------------------------
  const outputs: { src: Source; col: string; as: string }[] = [];
  const taken = new Set<string>();
  for (const src of sources) {
    for (const col of src.selected) {
      let as = col;
      if (taken.has(as.toLowerCase())) as = `${src.alias}_${col}`;
      if (taken.has(as.toLowerCase())) {
        fail(["source_tables"], `output column '${as}' would appear twice: select fewer columns`, as);
        continue;
      }
      taken.add(as.toLowerCase());
      outputs.push({ src, col, as });
    }
  }

  // -- filters ------------------------------------------------------------------------------
  const filters: { src: Source; col: LakehouseColumn; op: FilterOp; value: string; loc: (string | number)[] }[] = [];
  (spec.filters ?? []).forEach((f, i) => {
    const op = normaliseOp(f.op);
    if (!op) fail(["filters", i, "op"], `op must be one of ${FILTER_OPS.join(", ")}`, f.op);
    if (f.value.length > MAX_VALUE_CHARS)
      fail(["filters", i, "value"], `value is longer than ${MAX_VALUE_CHARS} characters`, f.value);
    const hit = resolveColumn(f.column, ["filters", i, "column"]);
    if (!op || !hit || f.value.length > MAX_VALUE_CHARS) return;
    if (op === "like" && baseType(hit.col.type) !== "string") {
      fail(["filters", i, "op"], `like applies to string columns; '${hit.col.name}' is ${hit.col.type}`, f.op);
      return;
    }
    // Render once per dialect now, so a bad value is reported here, not at build time.
    try {
      renderFilter({ ...hit, op, value: f.value }, "spark");
    } catch (e) {
      fail(["filters", i, "value"], `value for '${hit.col.name}' (${hit.col.type}) ${(e as Error).message}`, f.value);
      return;
    }
    filters.push({ ...hit, op, value: f.value, loc: ["filters", i] });
  });

  // -- features -----------------------------------------------------------------------------
  const relations: FeatureRelation[] = [];
  const realtime: RealtimeFeature[] = [];
  const claimOutput = (name: string, loc: (string | number)[]) => {
    if (!IDENT_RE.test(name)) {
      fail(loc, `output_column must match ${IDENT_RE}`, name);
      return false;
    }
    if (taken.has(name.toLowerCase())) {
      fail(loc, `output column '${name}' already exists in the dataset`, name);
      return false;
    }
    taken.add(name.toLowerCase());
    return true;
  };
  (spec.graph_features ?? []).forEach((g, i) => {
    const loc = ["graph_features", i];
    if (!ctx.graphKey || !ctx.checkGraph) {
      fail([...loc, "label"], "no graph is available for graph features", g.label);
      return;
    }
    let keyProp: string;
    try {
      keyProp = ctx.graphKey(g.label, ["body", ...loc, "label"]);
      ctx.checkGraph(g, ["body", ...loc]);
    } catch (e) {
      if (e instanceof AppError && e.issues) issues.push(...e.issues);
      else fail([...loc, "cypher_fragment"], (e as Error).message, g.cypher_fragment);
      return;
    }
    const key = resolveColumn(g.join_column ?? keyProp, [...loc, g.join_column ? "join_column" : "label"]);
    if (!key || !claimOutput(g.output_column, [...loc, "output_column"])) return;
    relations.push({
      name: `__graph_${i}`,
      kind: "graph",
      index: i,
      output_column: g.output_column,
      key: { alias: key.src.alias, column: key.col.name },
    });
  });
  (spec.realtime_cols ?? []).forEach((r: RealtimeColSpec, i) => {
    const loc = ["realtime_cols", i];
    const agg = r.agg.trim().toLowerCase();
    if (!(REALTIME_AGGS as readonly string[]).includes(agg))
      fail([...loc, "agg"], `agg must be one of ${REALTIME_AGGS.join(", ")}`, r.agg);
    const ms = windowMs(r.window.trim());
    if (ms === null)
      fail(
        [...loc, "window"],
        "window must be a number and a unit m, h, d or w (e.g. 7d, 30d), at most 3660 days",
        r.window,
      );
    if (!IDENT_RE.test(r.realtime_table))
      fail([...loc, "realtime_table"], `realtime_table must match ${IDENT_RE}`, r.realtime_table);
    if (!IDENT_RE.test(r.column)) fail([...loc, "column"], `column must match ${IDENT_RE}`, r.column);
    const hasTicker = sources.some((src) => src.schema.has("ticker"));
    const keyColumn = r.join_column ?? (hasTicker ? "ticker" : "symbol");
    const key = resolveColumn(keyColumn, [...loc, "join_column"]);
    const out = r.output_column ?? `${agg}_${r.column}_${r.window.trim()}`.toLowerCase();
    if (!key || ms === null || !IDENT_RE.test(r.realtime_table) || !IDENT_RE.test(r.column)) return;
    if (!(REALTIME_AGGS as readonly string[]).includes(agg) || !claimOutput(out, [...loc, "output_column"])) return;
    relations.push({
      name: `__rt_${i}`,
      kind: "realtime",
      index: i,
      output_column: out,
      key: { alias: key.src.alias, column: key.col.name },
    });
    realtime.push({
      index: i,
      table: r.realtime_table,
      column: r.column,
      agg,
      windowMs: ms,
      keyColumn: key.col.name,
      output_column: out,
    });
  });

  if (issues.length) throw AppError.validation(issues);
  if (!base) throw AppError.validation([issue(["body", "source_tables"], "at least one source table is required", [])]);

  const render = (d: Dialect): string => {
    const q = (n: string) => quoteIdent(n, d);
    const cols = [
      ...outputs.map((o) => `${q(o.src.alias)}.${q(o.col)} AS ${q(o.as)}`),
      ...relations.map((r) => `${q(r.name)}.${q("value")} AS ${q(r.output_column)}`),
    ];
    const lines = [`SELECT ${cols.join(", ")}`, `FROM ${q(ctx.namespace)}.${q(base.table)} AS ${q(base.alias)}`];
    for (const j of joinClauses) {
      lines.push(
        `LEFT JOIN ${q(ctx.namespace)}.${q(j.src.table)} AS ${q(j.src.alias)} ON ${q(j.left.src.alias)}.${q(j.left.col.name)} = ${q(j.right.src.alias)}.${q(j.right.col.name)}`,
      );
    }
    for (const r of relations) {
      const text = d === "spark" ? "STRING" : "VARCHAR";
      lines.push(
        `LEFT JOIN ${q(r.name)} ON ${q(r.name)}.${q("key")} = CAST(${q(r.key.alias)}.${q(r.key.column)} AS ${text})`,
      );
    }
    if (filters.length) lines.push(`WHERE ${filters.map((f) => renderFilter(f, d)).join(" AND ")}`);
    return lines.join("\n");
  };
  const spark = render("spark");
  return {
    sql: `CREATE TABLE IF NOT EXISTS ${quoteIdent(ctx.namespace, "spark")}.${quoteIdent(ctx.output_table, "spark")} USING iceberg AS\n${spark}`,
    select: { spark, duckdb: render("duckdb") },
    tables: [...new Set(sources.map((s) => s.table))],
    columns: [...outputs.map((o) => o.as), ...relations.map((r) => r.output_column)],
    relations,
    realtime,
  };
}

function comparable(a: string, b: string): boolean {
  const x = baseType(a);
  const y = baseType(b);
  if (x === y) return true;
  if (NUMERIC.has(x) && NUMERIC.has(y)) return true;
  return (x === "timestamp" || x === "timestamptz") && (y === "timestamp" || y === "timestamptz");
}

function renderFilter(f: { src: Source; col: LakehouseColumn; op: FilterOp; value: string }, d: Dialect): string {
  const ref = `${quoteIdent(f.src.alias, d)}.${quoteIdent(f.col.name, d)}`;
  switch (f.op) {
    case "is null":
      return `${ref} IS NULL`;
    case "is not null":
      return `${ref} IS NOT NULL`;
    case "in":
    case "not in": {
      const values = listValues(f.value);
      if (values.length === 0 || values.length > MAX_IN_VALUES)
        throw new Error(`must list 1 to ${MAX_IN_VALUES} values`);
      const lits = values.map((v) => typedLiteral(v, f.col.type, d));
      return `${ref} ${f.op === "in" ? "IN" : "NOT IN"} (${lits.join(", ")})`;
    }
    case "like":
      return `${ref} LIKE ${stringLiteral(f.value, d)}`;
    default:
      return `${ref} ${f.op === "!=" ? "<>" : f.op} ${typedLiteral(f.value, f.col.type, d)}`;
  }
}
