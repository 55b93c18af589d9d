/**
 * What custom tables need from the lakehouse gateway (adapters/lakehouse/table-import.ts):
 * imports parsed and written by the lab (one Iceberg commit each) and a one-call summary of
 * every table of a namespace.
 */
import type { LakehouseColumn } from "../../lakehouse/ports.ts";

export type ImportMode = "create" | "replace" | "append";
export const IMPORT_MODES: readonly ImportMode[] = ["create", "replace", "append"];

export interface CsvImportOptions {
  format: "csv";
  /** The first line names the columns (default true). */
  header: boolean;
  /** Names for a headerless file (or replacing the header's names). */
  columns: string[] | null;
  delimiter: string;
  /** Extra markers read as null (besides "", NA, NULL, NaN, ...). */
  nullValues: string[];
}

export type FileImportOptions = CsvImportOptions | { format: "parquet" };

export interface ImportedTable {
  name: string;
  columns: LakehouseColumn[];
  row_count: number;
  mode: ImportMode;
}

export interface TableSummary {
  name: string;
  columns: LakehouseColumn[];
  row_count: number | null;
  /** `custom` (uploaded), `foundry` (a dataset), `sync` (financial data), or `unknown`. */
  source: string;
}

export interface TableImportPort {
  /**
   * Parses the file in the lab (types inferred) and writes it as one commit. conflict (409)
   * when mode is create and the table exists; validation (422) naming the row or column of
   * bad input; not_found when the namespace is missing. `signal` cancels the gateway call.
   */
  importFile(
    namespace: string,
    table: string,
    file: Uint8Array,
    opts: FileImportOptions,
    mode: ImportMode,
    signal?: AbortSignal,
  ): Promise<ImportedTable>;
  importRows(
    namespace: string,
    table: string,
    rows: Record<string, unknown>[],
    mode: ImportMode,
    signal?: AbortSignal,
  ): Promise<ImportedTable>;
  /** Every table of the namespace with columns, row count and source; not_found when the namespace is missing. */
  summaries(namespace: string): Promise<TableSummary[]>;
}
