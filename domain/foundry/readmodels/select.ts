/**
 * A structured read-model query (ReadModelSelect) checked against the catalogue and
 * compiled to one parameterised SELECT. Identifiers come from the catalogue only (a name
 * not in it is a 422), always quoted; values are bound; tenant tables get
 * `tenant_id = ?` first, whatever the caller asked. Pure: the adapter runs the result.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import { READ_MODEL_SCHEMAS, type ReadModelTable, readModelTable } from "./catalogue.ts";
import { READ_MODEL_OPS, type ReadModelSelect, type ReadModelValue } from "./ports.ts";

export const DEFAULT_READ_LIMIT = 100;
export const MAX_READ_LIMIT = 10_000;
const MAX_IN_VALUES = 1_000;

export interface CompiledSelect {
  table: ReadModelTable;
  columns: string[];
  sql: string;
  params: ReadModelValue[];
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

const issue = (loc: string[], msg: string, input: unknown): ValidationIssue => ({
  loc: ["body", ...loc],
  msg,
  type: "value_error",
  input,
  ctx: {},
});

const scalar = (v: unknown): v is ReadModelValue =>
  v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));

/** The compiled query, or a validation error naming every problem. */
export function compileSelect(
  tenantId: string,
  q: ReadModelSelect,
  dialect: "sqlite" | "postgres" = "postgres",
): CompiledSelect {
  if (!(READ_MODEL_SCHEMAS as readonly string[]).includes(q.schema)) {
    throw AppError.validation([issue(["schema"], `schema must be one of ${READ_MODEL_SCHEMAS.join(", ")}`, q.schema)]);
  }
  const table = readModelTable(q.schema, q.table);
  if (!table) throw AppError.validation([issue(["table"], `${q.schema}.${q.table} is not a read model`, q.table)]);
  // tenant_id is never selectable nor filterable: the port sets it.
  const known = new Set(table.columns.map((c) => c.name).filter((c) => c !== "tenant_id"));
  const problems: ValidationIssue[] = [];
  const col = (name: unknown, loc: string[]): string | null => {
    if (typeof name === "string" && known.has(name)) return name;
    problems.push(issue(loc, `unknown column of ${q.schema}.${q.table}`, name));
    return null;
  };

  const columns = q.columns && q.columns.length > 0 ? q.columns : [...known];
  for (const [i, c] of columns.entries()) col(c, ["columns", String(i)]);

  const where: string[] = [];
  const params: ReadModelValue[] = [];
  if (table.scope === "tenant") {
    where.push(`"tenant_id" = ?`);
    params.push(tenantId);
  }
  (q.where ?? []).forEach((w, i) => {
    const c = col(w.column, ["where", String(i), "column"]);
    if (!(READ_MODEL_OPS as readonly string[]).includes(w.op)) {
      problems.push(issue(["where", String(i), "op"], `op must be one of ${READ_MODEL_OPS.join(", ")}`, w.op));
      return;
    }
    if (!c) return;
    const qc = quote(c);
    if (w.op === "is_null" || w.op === "not_null") {
      where.push(`${qc} IS ${w.op === "is_null" ? "" : "NOT "}NULL`);
      return;
    }
    if (w.op === "in") {
      const vs = w.value;
      if (!Array.isArray(vs) || vs.length === 0 || vs.length > MAX_IN_VALUES || !vs.every(scalar)) {
        problems.push(issue(["where", String(i), "value"], `in takes 1..${MAX_IN_VALUES} scalar values`, vs));
        return;
      }
      where.push(`${qc} IN (${vs.map(() => "?").join(", ")})`);
      params.push(...vs);
      return;
    }
    if (!scalar(w.value) || w.value === null) {
      problems.push(issue(["where", String(i), "value"], "a string, number or boolean is required", w.value));
      return;
    }
    const op = w.op === "like" ? "LIKE" : w.op === "!=" ? "<>" : w.op;
    where.push(`${qc} ${op} ?`);
    params.push(w.value);
  });

  const order = (q.order_by ?? []).flatMap((o, i) => {
    const c = col(o.column, ["order_by", String(i), "column"]);
    const dir = o.direction ?? "asc";
    if (dir !== "asc" && dir !== "desc") {
      problems.push(issue(["order_by", String(i), "direction"], "direction must be asc or desc", dir));
      return [];
    }
    return c ? [`${quote(c)} ${dir.toUpperCase()}`] : [];
  });

  const limit = q.limit ?? DEFAULT_READ_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_READ_LIMIT) {
    problems.push(issue(["limit"], `limit must be an integer in 1..${MAX_READ_LIMIT}`, q.limit));
  }
  if (problems.length > 0) throw AppError.validation(problems);

  // bun:sqlite reads integers past 2^53 as lossy numbers; as text they stay exact.
  const bigints = new Set(table.columns.filter((c) => c.type === "bigint").map((c) => c.name));
  const selected = columns.map((c) =>
    dialect === "sqlite" && bigints.has(c) ? `CAST(${quote(c)} AS TEXT) AS ${quote(c)}` : quote(c),
  );
  const sql =
    `SELECT ${selected.join(", ")} FROM ${table.schema}.${quote(table.table)}` +
    (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
    (order.length > 0 ? ` ORDER BY ${order.join(", ")}` : "") +
    " LIMIT ?";
  params.push(limit);
  return { table, columns, sql, params };
}
