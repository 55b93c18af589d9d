/** SQL helpers shared by the financial data store's reads and writes. */
import type { StatementQuery } from "../../domain/financials/fields.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";

/** Rows per INSERT statement: well under both engines' bound-parameter limits. */
export const BATCH_ROWS = 400;

export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function insertRows(
  tx: SqlClient,
  table: string,
  columns: readonly string[],
  rows: SqlParam[][],
): Promise<void> {
  const one = `(${columns.map(() => "?").join(", ")})`;
  for (let i = 0; i < rows.length; i += BATCH_ROWS) {
    const batch = rows.slice(i, i + BATCH_ROWS);
    await tx.run(
      `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${batch.map(() => one).join(", ")}`,
      batch.flat(),
    );
    await yieldToLoop();
  }
}

export type Row = Record<string, unknown>;

export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
export const bool = (v: unknown): boolean | null =>
  v === null || v === undefined ? null : v === true || v === 1 || v === "1" || v === "t";

/** `AND fiscal_year = ? AND <period column> = ?` for the filters a query sets (`alias` for joins). */
export function filterSql(q: StatementQuery, periodColumn: string, alias = ""): { where: string; params: SqlParam[] } {
  const parts: string[] = [];
  const params: SqlParam[] = [];
  if (q.fiscal_year !== undefined) {
    parts.push(`${alias}fiscal_year = ?`);
    params.push(q.fiscal_year);
  }
  if (q.period !== undefined) {
    parts.push(`${alias}${periodColumn} = ?`);
    params.push(q.period);
  }
  return { where: parts.map((p) => ` AND ${p}`).join(""), params };
}
