/**
 * GET/POST /v1/foundry/tables: the tenant's lakehouse tables and custom-table import.
 *
 * POST takes multipart/form-data (`file` = CSV or Parquet, `name`, optional `mode`, `header`,
 * `columns`, `delimiter`, `null_values`, `format`) or JSON `{name, rows, mode}`. The size
 * limit (CAIRN_FOUNDRY_UPLOAD_MAX_BYTES) is checked on the declared Content-Length before a
 * byte is read and counted while the body streams; the file is held once (at most the
 * limit) and sent to the lab, which parses it off the service's event loop. The client going
 * away cancels the gateway call.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError, type ValidationIssue } from "../../../domain/errors.ts";
import type { FileImportOptions, ImportMode } from "../../../domain/foundry/tables/ports.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { type ParsedForm, readMultipart } from "../documents/multipart.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const STR = "string" as const;
const FORM_FIELDS = ["name", "mode", "header", "columns", "delimiter", "null_values", "format"] as const;
/** Text fields are short (names, flags, a column list): 8 of at most 8 KiB each. */
const MAX_FIELDS = 8;
const MAX_FIELD_BYTES = 8 * 1024;

const Column = z.object({ name: z.string(), type: z.string(), nullable: z.boolean().optional() });

const ImportedTable = z
  .object({
    name: z.string(),
    columns: z.array(Column),
    row_count: z.number().int(),
    source: z.literal("custom"),
    mode: z.enum(["create", "replace", "append"]),
  })
  .openapi("FoundryImportedTable");

const TableList = z
  .object({
    tables: z.array(
      z.object({
        name: z.string(),
        columns: z.array(Column),
        row_count: z.number().int().nullable(),
        source: z.string().openapi({ description: "custom (uploaded), foundry (a dataset), sync (financial data)" }),
      }),
    ),
  })
  .openapi("FoundryTables");

const MODE_DOC = {
  type: STR,
  enum: ["create", "replace", "append"],
  default: "create",
  description: "create: 409 when the table exists; replace: schema and rows replaced; append: rows added",
};

const NAME_DOC = {
  type: STR,
  pattern: "^[a-z_][a-z0-9_]{0,62}$",
  description: "The table name; names starting with foundry_ are reserved for datasets",
};

const UPLOAD_FORM = {
  type: "object" as const,
  required: ["file", "name"],
  properties: {
    file: { type: STR, format: "binary", description: "CSV or Parquet" },
    name: NAME_DOC,
    mode: MODE_DOC,
    format: {
      type: STR,
      enum: ["csv", "parquet"],
      description: "Default: parquet for a .parquet file name or a file starting with PAR1, else csv",
    },
    header: {
      type: STR,
      enum: ["true", "false"],
      default: "true",
      description: "CSV: the first line names the columns",
    },
    columns: { type: STR, description: "CSV: comma-separated column names (for a headerless file)" },
    delimiter: { type: STR, default: ",", description: "CSV: one character" },
    null_values: { type: STR, description: "CSV: comma-separated extra markers read as null (e.g. ?)" },
  },
};

const ROWS_BODY = {
  type: "object" as const,
  required: ["name", "rows"],
  properties: {
    name: NAME_DOC,
    mode: MODE_DOC,
    rows: { type: "array" as const, items: { type: "object" as const }, description: "Objects; keys are columns" },
  },
};

export function registerFoundryTableRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const limit = deps.foundry.tables.uploadMaxBytes;
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/tables",
      tags: ["Foundry"],
      summary: "Create, replace or append to a custom table from CSV, Parquet or JSON rows",
      description:
        `Multipart (file + fields) or JSON {name, rows, mode}. The body may be at most ${limit} bytes ` +
        "(CAIRN_FOUNDRY_UPLOAD_MAX_BYTES; 413 before reading when Content-Length says more). Column types " +
        "are inferred; CSV header names are normalised (lower case, [a-z0-9_], other characters -> _, " +
        "duplicates get _2, _3...). Bad input is 422 naming the row (loc body.file.row.N, N = line of the " +
        "file, header included) or the column.",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: {
        body: {
          content: {
            "multipart/form-data": { schema: UPLOAD_FORM },
            "application/json": { schema: ROWS_BODY },
          },
          required: true,
        },
      },
      responses: {
        200: json(ImportedTable, "Imported in one commit"),
        409: json(ErrorBody, "mode=create and the table exists, or a column's type conflicts on append"),
        413: json(ErrorBody, `The body exceeds ${limit} bytes`),
        503: json(ErrorBody, "No lakehouse is configured"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const tenant = tenantOf(c);
      const req = c.req.raw;
      const contentType = req.headers.get("content-type") ?? "";
      const tables = deps.foundry.tables;
      tables.lake(); // 503 before reading a body that cannot be stored
      if (/^application\/json\b/i.test(contentType)) {
        const body = await readJson(req, limit);
        const out = await tables.importRows(tenant, body.name, body.mode, body.rows, req.signal);
        return c.json(shape(out), 200);
      }
      const form = await readMultipart(req, {
        maxFileBytes: limit,
        maxFields: MAX_FIELDS,
        maxFieldBytes: MAX_FIELD_BYTES,
      });
      const { name, mode, file } = uploadForm(form);
      const out = await tables.importFile(tenant, name, mode, file, req.signal);
      return c.json(shape(out), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/tables",
      tags: ["Foundry"],
      summary: "The tenant's lakehouse tables: columns with types, row count and source",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(TableList, "Tables"), 503: json(ErrorBody, "No lakehouse is configured"), ...AUTH_ERRORS },
    }),
    async (c) => {
      const tables = await deps.foundry.tables.list(tenantOf(c));
      return c.json({ tables }, 200);
    },
  );
}

function shape(t: { name: string; columns: z.infer<typeof Column>[]; row_count: number; mode: ImportMode }) {
  return { name: t.name, columns: t.columns, row_count: t.row_count, source: "custom" as const, mode: t.mode };
}

const tooLarge = (limit: number) =>
  new AppError("payload_too_large", `The request body exceeds the upload limit of ${limit} bytes`, undefined, {
    Connection: "close",
  });

/** The JSON body, refused (413) past `limit` bytes: by Content-Length unread, else while it streams. */
async function readJson(req: Request, limit: number): Promise<Record<string, unknown>> {
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge(limit);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks, size).toString("utf8"));
  } catch {
    throw AppError.validation([
      { loc: ["body"], msg: "The body is not valid JSON", type: "json_invalid", input: null, ctx: {} },
    ]);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw AppError.validation([
      { loc: ["body"], msg: "Input should be an object", type: "dict_type", input: null, ctx: {} },
    ]);
  }
  const extra = Object.keys(body).filter((k) => !["name", "mode", "rows"].includes(k));
  if (extra.length > 0) {
    throw AppError.validation(
      extra.map((k) => ({
        loc: ["body", k],
        msg: "Extra inputs are not permitted",
        type: "extra_forbidden",
        input: null,
        ctx: {},
      })),
    );
  }
  return body as Record<string, unknown>;
}

/** The multipart fields checked together (one 422 with every problem). */
function uploadForm(form: ParsedForm): {
  name: string;
  mode: ImportMode;
  file: { bytes: Uint8Array; opts: FileImportOptions };
} {
  const issues: ValidationIssue[] = [];
  const issue = (loc: string, msg: string, type: string, input: unknown = null) =>
    issues.push({ loc: ["body", loc], msg, type, input, ctx: {} });
  for (const [field, values] of form.fields) {
    if (!(FORM_FIELDS as readonly string[]).includes(field))
      issue(field, "Extra inputs are not permitted", "extra_forbidden");
    else if (values.length > 1) issue(field, "Field given more than once", "value_error");
  }
  const one = (f: string): string | undefined => {
    const v = form.fields.get(f)?.[0]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const file = form.file;
  if (!file) issue("file", "Field required", "missing");
  else if (file.field !== "file") issue(file.field, "The table must be sent in the field 'file'", "extra_forbidden");
  else if (file.bytes.byteLength === 0) issue("file", "The file is empty", "missing");
  const name = one("name");
  if (name === undefined) issue("name", "Field required", "missing");
  const mode = one("mode") ?? "create";
  if (!["create", "replace", "append"].includes(mode))
    issue("mode", "Input should be 'create', 'replace' or 'append'", "enum", mode);
  const header = one("header") ?? "true";
  if (!["true", "false"].includes(header.toLowerCase()))
    issue("header", "Input should be a valid boolean", "bool_parsing", header);
  const delimiter = form.fields.get("delimiter")?.[0] ?? ",";
  if (delimiter.length !== 1 || /["\r\n]/.test(delimiter))
    issue("delimiter", "The delimiter must be one character (not a quote or newline)", "value_error", delimiter);
  const columns = one("columns")
    ?.split(",")
    .map((s) => s.trim());
  if (columns?.some((s) => s === "")) issue("columns", "Column names must not be empty", "value_error", one("columns"));
  const nullValues = one("null_values")?.split(",") ?? [];
  let format = one("format");
  if (format !== undefined && format !== "csv" && format !== "parquet")
    issue("format", "Input should be 'csv' or 'parquet'", "enum", format);
  if (issues.length > 0) throw AppError.validation(issues);
  const f = file as NonNullable<typeof file>;
  format ??= isParquet(f.filename, f.bytes) ? "parquet" : "csv";
  const opts: FileImportOptions =
    format === "parquet"
      ? { format: "parquet" }
      : { format: "csv", header: header.toLowerCase() === "true", columns: columns ?? null, delimiter, nullValues };
  return { name: name as string, mode: mode as ImportMode, file: { bytes: f.bytes, opts } };
}

function isParquet(filename: string, bytes: Uint8Array): boolean {
  if (/\.(parquet|pq)$/i.test(filename)) return true;
  return bytes.byteLength >= 4 && Buffer.from(bytes.subarray(0, 4)).toString("latin1") === "PAR1";
}
