/** Multi-row INSERT in chunks: one round trip per chunk instead of per row (Postgres). */
import type { SqlClient, SqlParam } from "../../domain/ports.ts";

const ROWS_PER_STATEMENT = 200;

export async function insertMany(
  tx: SqlClient,
  table: string,
  cols: readonly string[],
  rows: readonly SqlParam[][],
  suffix = "",
): Promise<void> {
  const one = `(${cols.map(() => "?").join(", ")})`;
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    await tx.run(
      `INSERT INTO ${table} (${cols.join(", ")}) VALUES ${chunk.map(() => one).join(", ")} ${suffix}`,
      chunk.flat(),
    );
  }
}
