/**
 * TableImportPort over the lab's gateway (lab/src/lab/lakehouse/import_routes.py): the file
 * goes as the raw request body, options as query parameters; the gateway parses it off its
 * event loop and answers the imported table, or 422 `{detail, loc, type, input}` naming the
 * offending row or column, which becomes the section-7 validation body. The caller's signal
 * (the client going away) cancels the call, as does a deadline.
 */
import { AppError, type ErrorCode } from "../../domain/errors.ts";
import type {
  FileImportOptions,
  ImportedTable,
  ImportMode,
  TableImportPort,
  TableSummary,
} from "../../domain/foundry/tables/ports.ts";
import { ICEBERG_NAME_RE } from "../../domain/lakehouse/catalog.ts";

export interface TableImportOptions {
  url: string;
  token?: string | undefined;
  /** Deadline of one import (parse + write), default 10 minutes. */
  importTimeoutMs?: number;
  /** Deadline of the summary listing, default 30 s. */
  timeoutMs?: number;
}

function codeFor(status: number): ErrorCode {
  if (status === 400) return "bad_request";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 401 || status === 403) return "internal";
  return "unavailable";
}

function checked(kind: string, value: string): string {
  if (!ICEBERG_NAME_RE.test(value)) throw new AppError("bad_request", `Invalid lakehouse ${kind} name '${value}'`);
  return value;
}

interface GatewayProblem {
  detail?: unknown;
  loc?: unknown;
  type?: unknown;
  input?: unknown;
}

export class GatewayTableImport implements TableImportPort {
  private readonly base: string;

  constructor(private readonly opts: TableImportOptions) {
    this.base = opts.url.replace(/\/+$/, "");
  }

  private async call<T>(
    what: string,
    path: string,
    init: { method: string; body?: BodyInit; contentType?: string; signal?: AbortSignal | undefined },
    timeoutMs: number,
  ): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.opts.token) headers["x-lab-token"] = this.opts.token;
    if (init.contentType) headers["content-type"] = init.contentType;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.base}${path}`, { method: init.method, headers, body: init.body ?? null, signal });
      text = await res.text();
    } catch (err) {
      if (init.signal?.aborted) throw new AppError("request_timeout", `${what} was cancelled: the client went away`);
      const e = err as Error;
      if (deadline.aborted) {
        throw new AppError("unavailable", `Lakehouse gateway did not finish ${what} within ${timeoutMs} ms`);
      }
      throw new AppError("unavailable", `Lakehouse gateway unreachable at ${this.base} (${what}): ${e.message}`);
    }
    let body: unknown = null;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      throw new AppError("unavailable", `Lakehouse gateway answered ${what} with ${res.status} and a non-JSON body`);
    }
    if (res.ok) return body as T;
    const problem = (body ?? {}) as GatewayProblem;
    const detail = typeof problem.detail === "string" ? problem.detail : `HTTP ${res.status}`;
    if (res.status === 422 && Array.isArray(problem.loc)) {
      throw AppError.validation([
        {
          loc: (problem.loc as unknown[]).map(String),
          msg: detail,
          type: typeof problem.type === "string" ? problem.type : "value_error",
          input: problem.input ?? null,
          ctx: {},
        },
      ]);
    }
    if (res.status === 401 || res.status === 403) {
      throw new AppError("internal", `Lakehouse gateway refused ${what}: check CAIRN_LAB_TOKEN`);
    }
    const code = codeFor(res.status);
    // Conflicts and bad input are the caller's to read as they are; the rest names the call.
    throw new AppError(
      code,
      code === "conflict" ? detail : `Lakehouse gateway ${what} failed (${res.status}): ${detail}`,
    );
  }

  async importFile(
    namespace: string,
    table: string,
    file: Uint8Array,
    opts: FileImportOptions,
    mode: ImportMode,
    signal?: AbortSignal,
  ): Promise<ImportedTable> {
    const q = new URLSearchParams({ format: opts.format, mode });
    if (opts.format === "csv") {
      q.set("header", String(opts.header));
      q.set("delimiter", opts.delimiter);
      if (opts.columns) q.set("columns", opts.columns.join(","));
      if (opts.nullValues.length > 0) q.set("null_values", opts.nullValues.join(","));
    }
    const path = `/imports/${checked("namespace", namespace)}/${checked("table", table)}?${q}`;
    return this.call<ImportedTable>(
      `import of ${table}`,
      path,
      { method: "POST", body: file as Uint8Array<ArrayBuffer>, contentType: "application/octet-stream", signal },
      this.opts.importTimeoutMs ?? 600_000,
    );
  }

  async importRows(
    namespace: string,
    table: string,
    rows: Record<string, unknown>[],
    mode: ImportMode,
    signal?: AbortSignal,
  ): Promise<ImportedTable> {
    const path = `/imports/${checked("namespace", namespace)}/${checked("table", table)}/rows`;
    return this.call<ImportedTable>(
      `import of ${table}`,
      path,
      { method: "POST", body: JSON.stringify({ mode, rows }), contentType: "application/json", signal },
      this.opts.importTimeoutMs ?? 600_000,
    );
  }

  async summaries(namespace: string): Promise<TableSummary[]> {
    const body = await this.call<{ tables: TableSummary[] }>(
      `listing of ${namespace}`,
      `/namespaces/${checked("namespace", namespace)}/summaries`,
      { method: "GET" },
      this.opts.timeoutMs ?? 30_000,
    );
    return body.tables;
  }
}
