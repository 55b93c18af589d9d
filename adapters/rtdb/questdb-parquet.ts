/**
 * DuckDB reading Parquet files QuestDB wrote: tiered partitions for range reads, and exported
 * files' counts for checking an export. One in-memory DuckDB instance, opened on first use,
 * one query at a time.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { jsonSafeValue, type TableSpec } from "../../domain/rtdb/index.ts";
import { Mutex } from "../sql/index.ts";
import { sqlIdent, sqlString } from "./questdb-http.ts";

export class QuestDbParquetReader {
  private duck: Promise<DuckDBInstance> | null = null;
  /** DuckDB reads exported Parquet files back (row counts); one query at a time. */
  private readonly duckMutex = new Mutex();

  /** Rows of Parquet files in [from, to), formatted like the embedded engine's range reads. */
  readRange(spec: TableSpec, paths: string[], from: string, to: string, limit: number): Promise<unknown[][]> {
    this.duck ??= DuckDBInstance.create(":memory:", { threads: "1" });
    const opening = this.duck;
    return this.duckMutex.run(async () => {
      const conn = await (await opening).connect();
      try {
        // QuestDB's files hold UTC-adjusted timestamps: format them in UTC whatever the host's zone.
        await conn.run("SET TimeZone = 'UTC'");
        const cols = spec.columns.map((c) => {
          const col = sqlIdent(c.name);
          if (c.type === "TIMESTAMP" || c.type === "DATE") return `strftime(${col}, '%Y-%m-%dT%H:%M:%S.%fZ') AS ${col}`;
          if (c.type === "UUID") return `${col}::VARCHAR AS ${col}`;
          return col;
        });
        const ts = sqlIdent(spec.designated);
        const reader = await conn.runAndReadAll(
          `SELECT ${cols.join(", ")} FROM read_parquet([${paths.map(sqlString).join(", ")}])
            WHERE ${ts} >= ${sqlString(from)}::TIMESTAMPTZ AND ${ts} < ${sqlString(to)}::TIMESTAMPTZ
            ORDER BY ${ts} LIMIT ${limit + 1}`,
        );
        return reader.getRowsJS().map((row) => row.map(jsonSafeValue));
      } finally {
        conn.closeSync();
      }
    });
  }

  /** The file's row count, then the non-null count of each named column. */
  counts(file: string, columns: string[]): Promise<number[]> {
    this.duck ??= DuckDBInstance.create(":memory:", { threads: "1" });
    const opening = this.duck;
    return this.duckMutex.run(async () => {
      const conn = await (await opening).connect();
      try {
        const counts = ["count(*)", ...columns.map((c) => `count(${sqlIdent(c)})`)];
        const reader = await conn.runAndReadAll(`SELECT ${counts.join(", ")} FROM read_parquet(${sqlString(file)})`);
        return (reader.getRows()[0] ?? []).map(Number);
      } finally {
        conn.closeSync();
      }
    });
  }

  async close(): Promise<void> {
    const opened = this.duck;
    this.duck = null;
    await this.duckMutex.run(async () => {
      (await opened?.catch(() => null))?.closeSync();
    });
  }
}
