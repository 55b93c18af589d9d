/**
 * Row ingest into a QuestDB table over ILP (HTTP transport). Each batch of rows is one ILP
 * request, which QuestDB commits as one transaction; a refused batch is discarded, never sent
 * half-built. The caller waits for the WAL to be applied.
 */
import { Sender } from "@questdb/nodejs-client";
import { AppError } from "../../domain/errors.ts";
import {
  batchesOf,
  type CanonicalValue,
  type ColumnType,
  type Row,
  RowConverter,
  type TableSpec,
} from "../../domain/rtdb/index.ts";
import type { QuestDbHttp } from "./questdb-http.ts";

/** Writes the rows to the QuestDB table `full` (whose spec is `spec`); returns the rows committed. */
export async function ingestIlp(
  http: QuestDbHttp,
  full: string,
  spec: TableSpec,
  rows: Row[] | AsyncIterable<Row[]>,
): Promise<number> {
  const converter = new RowConverter(spec);
  const cols = spec.columns.map((c, i) => ({ name: c.name, type: c.type, i }));
  // ILP wants symbols before the other columns; the designated timestamp goes last (at()).
  const designated = converter.designatedIndex;
  const order = [
    ...cols.filter((c) => c.type === "SYMBOL"),
    ...cols.filter((c) => c.type !== "SYMBOL" && c.i !== designated),
  ].map((c) => ({ name: c.name, i: c.i, kind: ILP_KIND[c.type] }));
  // One value array for every row: each row is written to the buffer before the next.
  const values: CanonicalValue[] = new Array(cols.length).fill(null);
  const sender = await Sender.fromConfig(http.ilpConfig({ auto_flush: "off", request_timeout: 60_000 }));
  let committed = 0;
  let failed = true;
  try {
    for await (const batch of batchesOf(rows)) {
      for (const row of batch) {
        converter.convertInto(row, values);
        sender.table(full);
        // A switch with direct calls, not a table of closures: this loop is the ingest's hot path.
        for (let k = 0; k < order.length; k++) {
          const c = order[k]!;
          const v = values[c.i];
          if (v === null) continue;
          switch (c.kind) {
            case IlpKind.Symbol:
              sender.symbol(c.name, v);
              break;
            case IlpKind.Float:
              sender.floatColumn(c.name, v as number);
              break;
            case IlpKind.Int:
              sender.intColumn(c.name, v as number);
              break;
            case IlpKind.String:
              sender.stringColumn(c.name, v as string);
              break;
            case IlpKind.Boolean:
              sender.booleanColumn(c.name, v as boolean);
              break;
            default:
              sender.timestampColumn(c.name, v as bigint, "us");
          }
        }
        await sender.at(values[designated] as bigint, "us");
      }
      // One ILP request per batch: QuestDB commits it as one transaction.
      await sender.flush().catch((err: Error) => {
        // `HTTP request failed, statusCode=4xx, error={...}` is QuestDB refusing the rows.
        throw new AppError(
          /statusCode=4\d\d\b/.test(err.message) ? "bad_request" : "unavailable",
          `QuestDB refused rows ${committed + 1}-${committed + batch.length} of '${spec.name}' ` +
            `(${committed} committed before): ${err.message}`,
        );
      });
      committed += batch.length;
    }
    failed = false;
  } finally {
    // A refused row leaves a half-built batch in the buffer: discard it, never send it.
    if (failed) sender.reset();
    await sender.close().catch(() => {});
  }
  return committed;
}

/** How each QuestDB type goes over ILP (strings cover CHAR and UUID; timestamps cover DATE). */
const IlpKind = { Symbol: 0, Float: 1, Int: 2, String: 3, Boolean: 4, Timestamp: 5 } as const;

const ILP_KIND: Record<ColumnType, number> = {
  SYMBOL: IlpKind.Symbol,
  STRING: IlpKind.String,
  VARCHAR: IlpKind.String,
  CHAR: IlpKind.String,
  UUID: IlpKind.String,
  DOUBLE: IlpKind.Float,
  FLOAT: IlpKind.Float,
  LONG: IlpKind.Int,
  INT: IlpKind.Int,
  SHORT: IlpKind.Int,
  BYTE: IlpKind.Int,
  BOOLEAN: IlpKind.Boolean,
  TIMESTAMP: IlpKind.Timestamp,
  DATE: IlpKind.Timestamp,
};
