/**
 * Ingestion into the embedded engine's real-time tables with DuckDB's appender: each batch
 * is converted (domain/rtdb/rows.ts), then appended inside one transaction under the
 * owner's connection mutex, so a batch commits whole or not at all and other statements wait
 * for at most one batch.
 */
import {
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampValue,
  DuckDBUUIDValue,
} from "@duckdb/node-api";
import {
  batchesOf,
  type CanonicalValue,
  type ColumnType,
  type Row,
  RowConverter,
  type TableSpec,
} from "../../domain/rtdb/index.ts";

type Exclusive = <T>(fn: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;
type Append = (a: DuckDBAppender, v: CanonicalValue) => void;

const APPEND: Record<ColumnType, Append> = {
  SYMBOL: (a, v) => a.appendVarchar(v as string),
  STRING: (a, v) => a.appendVarchar(v as string),
  VARCHAR: (a, v) => a.appendVarchar(v as string),
  CHAR: (a, v) => a.appendVarchar(v as string),
  UUID: (a, v) => a.appendUUID(DuckDBUUIDValue.fromUint128(BigInt(`0x${(v as string).replaceAll("-", "")}`))),
  DOUBLE: (a, v) => a.appendDouble(v as number),
  FLOAT: (a, v) => a.appendFloat(v as number),
  LONG: (a, v) => a.appendBigInt(BigInt(v as number)),
  INT: (a, v) => a.appendInteger(v as number),
  SHORT: (a, v) => a.appendSmallInt(v as number),
  BYTE: (a, v) => a.appendTinyInt(v as number),
  BOOLEAN: (a, v) => a.appendBoolean(v as boolean),
  TIMESTAMP: (a, v) => a.appendTimestamp(new DuckDBTimestampValue(v as bigint)),
  // QuestDB's DATE is milliseconds; the column is TIMESTAMP_MS (adapters/rtdb/rtdb.ts).
  DATE: (a, v) => a.appendTimestampMilliseconds(new DuckDBTimestampMillisecondsValue((v as bigint) / 1000n)),
};

export async function appendRows(
  exclusive: Exclusive,
  ns: string,
  specOf: (conn: DuckDBConnection) => Promise<TableSpec>,
  rows: Row[] | AsyncIterable<Row[]>,
): Promise<{ rows: number }> {
  // Resolve the table first: an unknown table is not_found even when there are no rows.
  const spec = await exclusive(specOf);
  const converter = new RowConverter(spec);
  const appenders = spec.columns.map((c) => APPEND[c.type]);
  let written = 0;
  for await (const batch of batchesOf(rows)) {
    const values = batch.map((row) => converter.convert(row));
    await exclusive(async (conn) => {
      await conn.run("BEGIN TRANSACTION");
      try {
        const appender = await conn.createAppender(spec.name, ns);
        try {
          for (const row of values) {
            for (let i = 0; i < row.length; i++) {
              const v = row[i]!;
              if (v === null) appender.appendNull();
              else appenders[i]!(appender, v);
            }
            appender.endRow();
          }
          appender.flushSync();
        } finally {
          appender.closeSync();
        }
        await conn.run("COMMIT");
      } catch (err) {
        await conn.run("ROLLBACK");
        throw err;
      }
    });
    written += values.length;
  }
  return { rows: written };
}
