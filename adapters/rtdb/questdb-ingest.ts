/**
 * Row ingest into a QuestDB table over ILP (HTTP transport). Each batch of rows is one ILP
 * request (ilp.ts encodes it), which QuestDB commits as one transaction; a refused batch is
 * discarded, never sent half-built. The caller waits for the WAL to be applied.
 */
import { AppError } from "../../domain/errors.ts";
import { batchesOf, type CanonicalValue, type Row, RowConverter, type TableSpec } from "../../domain/rtdb/index.ts";
import { IlpTableEncoder } from "./ilp.ts";
import type { QuestDbHttp } from "./questdb-http.ts";

/** Writes the rows to the QuestDB table `full` (whose spec is `spec`); returns the rows committed. */
export async function ingestIlp(
  http: QuestDbHttp,
  full: string,
  spec: TableSpec,
  rows: Row[] | AsyncIterable<Row[]>,
): Promise<number> {
  const converter = new RowConverter(spec);
  const encoder = new IlpTableEncoder(full, spec.columns, converter.designatedIndex);
  // One value array for every row: each row is encoded before the next is converted.
  const values: CanonicalValue[] = new Array(spec.columns.length).fill(null);
  let committed = 0;
  for await (const batch of batchesOf(rows)) {
    try {
      for (const row of batch) encoder.append(converter.convertInto(row, values));
    } catch (err) {
      // A refused row leaves a half-built batch: discard it, never send it.
      encoder.reset();
      throw err;
    }
    // One ILP request per batch: QuestDB commits it as one transaction.
    await http.writeIlp(encoder.take()).catch((err: unknown) => {
      const code = err instanceof AppError ? err.code : "unavailable";
      throw new AppError(
        code,
        `QuestDB refused rows ${committed + 1}-${committed + batch.length} of '${spec.name}' ` +
          `(${committed} committed before): ${(err as Error).message}`,
      );
    });
    committed += batch.length;
  }
  return committed;
}
