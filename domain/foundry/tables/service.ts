/**
 * The tenant's lakehouse tables as Foundry lists them (GET /v1/foundry/tables): name,
 * columns with types, row count and source; and custom tables (POST /v1/foundry/tables)
 * imported from CSV, Parquet or JSON rows into the tenant's namespace. The lab parses and
 * writes (./ports.ts); this checks the name, the mode and the size before a byte moves.
 */
import { AppError, type ValidationIssue } from "../../errors.ts";
import type { LakehouseColumn, LakehousePort } from "../../lakehouse/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../tenants/namespaces.ts";
import {
  type FileImportOptions,
  IMPORT_MODES,
  type ImportedTable,
  type ImportMode,
  type TableImportPort,
} from "./ports.ts";

export interface FoundryTable {
  name: string;
  columns: LakehouseColumn[];
  row_count: number | null;
  /** Where the rows came from: `custom` (uploaded), `foundry` (a dataset), `sync` (financial data), ... */
  source: string;
}

export interface FoundryTablesDeps {
  lakehouse: LakehousePort | null;
  /** The gateway's import and summary routes; null when no lakehouse is configured. */
  imports: TableImportPort | null;
  /** Largest upload (config.foundry.uploadMaxBytes). */
  uploadMaxBytes: number;
}

/** A custom table's name: an Iceberg identifier; `foundry_` is reserved for datasets. */
export const CUSTOM_TABLE_RE = /^[a-z_][a-z0-9_]{0,62}$/;
export const RESERVED_PREFIX = "foundry_";
/** JSON row imports take at most this many rows. */
export const MAX_JSON_ROWS = 100_000;

export interface UploadedFile {
  bytes: Uint8Array;
  opts: FileImportOptions;
}

/** The issues of a custom table's name (empty when valid). */
export function nameIssues(name: unknown, loc: string[] = ["body", "name"]): ValidationIssue[] {
  if (typeof name !== "string" || name === "") {
    return [{ loc, msg: "Field required", type: "missing", input: name ?? null, ctx: {} }];
  }
  if (!CUSTOM_TABLE_RE.test(name)) {
    return [
      {
        loc,
        msg: "String should match pattern '^[a-z_][a-z0-9_]{0,62}$' (lower case letters, digits and _)",
        type: "string_pattern_mismatch",
        input: name,
        ctx: { pattern: CUSTOM_TABLE_RE.source },
      },
    ];
  }
  if (name.startsWith(RESERVED_PREFIX)) {
    return [
      {
        loc,
        msg: `Names starting with '${RESERVED_PREFIX}' are reserved for datasets`,
        type: "value_error",
        input: name,
        ctx: { reserved_prefix: RESERVED_PREFIX },
      },
    ];
  }
  return [];
}

export function modeIssues(mode: unknown, loc: string[] = ["body", "mode"]): ValidationIssue[] {
  if (mode === undefined || (IMPORT_MODES as readonly unknown[]).includes(mode)) return [];
  return [
    {
      loc,
      msg: "Input should be 'create', 'replace' or 'append'",
      type: "enum",
      input: mode,
      ctx: { expected: "'create', 'replace' or 'append'" },
    },
  ];
}

export class FoundryTables {
  constructor(private readonly deps: FoundryTablesDeps) {}

  get uploadMaxBytes(): number {
    return this.deps.uploadMaxBytes;
  }

  /** The lakehouse, or unavailable (503) when none is configured. */
  lake(): LakehousePort {
    if (!this.deps.lakehouse) throw new AppError("unavailable", "No lakehouse is configured (CAIRN_LAKEHOUSE_URL)");
    return this.deps.lakehouse;
  }

  private importer(): TableImportPort {
    if (!this.deps.imports) throw new AppError("unavailable", "No lakehouse is configured (CAIRN_LAKEHOUSE_URL)");
    return this.deps.imports;
  }

  /** The tenant's tables with columns, row count and source, in one gateway call. */
  async list(t: TenantRef): Promise<FoundryTable[]> {
    const imports = this.importer();
    try {
      return await imports.summaries(lakehouseNamespace(t.slug));
    } catch (err) {
      // A tenant provisioned before a lakehouse was configured has no namespace yet: no tables.
      if (err instanceof AppError && err.code === "not_found") return [];
      throw err;
    }
  }

  /** Imports a CSV or Parquet file as the custom table `name` (validated here, parsed in the lab). */
  async importFile(
    t: TenantRef,
    name: string,
    mode: ImportMode,
    file: UploadedFile,
    signal?: AbortSignal,
  ): Promise<ImportedTable> {
    const issues = [...nameIssues(name), ...modeIssues(mode)];
    if (issues.length > 0) throw AppError.validation(issues);
    if (file.bytes.byteLength > this.deps.uploadMaxBytes) {
      throw new AppError("payload_too_large", `The file exceeds the upload limit of ${this.deps.uploadMaxBytes} bytes`);
    }
    const imports = this.importer();
    const ns = await this.lake().ensureNamespace(t);
    return imports.importFile(ns, name, file.bytes, file.opts, mode, signal);
  }

  /** Imports JSON rows (objects; keys are the columns) as the custom table `name`. */
  async importRows(
    t: TenantRef,
    name: unknown,
    mode: unknown,
    rows: unknown,
    signal?: AbortSignal,
  ): Promise<ImportedTable> {
    const issues = [...nameIssues(name), ...modeIssues(mode)];
    if (!Array.isArray(rows) || rows.length === 0) {
      issues.push({
        loc: ["body", "rows"],
        msg: "rows must be a non-empty array of objects",
        type: "value_error",
        input: null,
        ctx: {},
      });
    } else if (rows.length > MAX_JSON_ROWS) {
      issues.push({
        loc: ["body", "rows"],
        msg: `List should have at most ${MAX_JSON_ROWS} items (upload a CSV or Parquet file for more)`,
        type: "too_long",
        input: null,
        ctx: { max_length: MAX_JSON_ROWS },
      });
    } else {
      const bad = rows.findIndex((r) => typeof r !== "object" || r === null || Array.isArray(r));
      if (bad >= 0) {
        issues.push({
          loc: ["body", "rows", String(bad)],
          msg: "Each row must be an object",
          type: "dict_type",
          input: null,
          ctx: {},
        });
      }
    }
    if (issues.length > 0) throw AppError.validation(issues);
    const imports = this.importer();
    const ns = await this.lake().ensureNamespace(t);
    return imports.importRows(
      ns,
      name as string,
      rows as Record<string, unknown>[],
      (mode as ImportMode | undefined) ?? "create",
      signal,
    );
  }
}
