/**
 * Reads Parquet files back with an in-memory DuckDB (read_parquet), apart from the
 * time-series engine's connection and mutex: verifying an export never waits on ingestion.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import type { ParquetInspector } from "../../domain/rtdb/index.ts";

export class DuckDbParquetInspector implements ParquetInspector {
  private instance: Promise<DuckDBInstance> | null = null;

  async inspect(file: string, column: string): Promise<{ rows: number; min: string | null; max: string | null }> {
    this.instance ??= DuckDBInstance.create(":memory:", { threads: "1" });
    const conn = await (await this.instance).connect();
    try {
      const col = `"${column.replaceAll('"', '""')}"`;
      const reader = await conn.runAndReadAll(
        `SELECT count(*) AS n, strftime(min(${col}), '%Y-%m-%dT%H:%M:%S.%fZ') AS lo,
                strftime(max(${col}), '%Y-%m-%dT%H:%M:%S.%fZ') AS hi
           FROM read_parquet($1)`,
        [file],
      );
      const row = reader.getRowObjectsJS()[0] ?? {};
      return {
        rows: Number(row.n ?? 0),
        min: typeof row.lo === "string" ? row.lo : null,
        max: typeof row.hi === "string" ? row.hi : null,
      };
    } finally {
      conn.closeSync();
    }
  }

  async close(): Promise<void> {
    const opened = await this.instance?.catch(() => null);
    opened?.closeSync();
    this.instance = null;
  }
}
