/**
 * LakehousePort over the lab's HTTP gateway (docs/lakehouse-gateway.md). Every call has a
 * deadline (AbortSignal.timeout) so a hung gateway fails a request or a job instead of
 * holding it; gateway answers become AppErrors whose messages say which call failed and
 * why, never carrying the lab token.
 */
import { AppError, type ErrorCode } from "../../domain/errors.ts";
import { ICEBERG_NAME_RE } from "../../domain/lakehouse/catalog.ts";
import type {
  LakehouseColumn,
  LakehouseHealth,
  LakehousePort,
  LakehouseRows,
  WriteRequest,
  WriteResult,
} from "../../domain/lakehouse/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../domain/tenants/namespaces.ts";

export interface GatewayClientOptions {
  url: string;
  /** Sent as X-Lab-Token when set. */
  token?: string | undefined;
  /** Deadline for metadata calls and reads (default 10 s). */
  timeoutMs?: number;
  /** Deadline for writes, SQL and smoke tests, which do real work (default 120 s). */
  longTimeoutMs?: number;
  /** Deadline for health(), which readiness probes call (default 2 s). */
  healthTimeoutMs?: number;
}

type Method = "GET" | "POST" | "DELETE";

/** The gateway's status -> our error code. 401 is our misconfiguration, not the caller's. */
function codeFor(status: number): ErrorCode {
  if (status === 400) return "bad_request";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 401 || status === 403) return "internal";
  return "unavailable";
}

function name(kind: string, value: string): string {
  if (!ICEBERG_NAME_RE.test(value)) {
    throw new AppError("bad_request", `Invalid lakehouse ${kind} name '${value}': must match ${ICEBERG_NAME_RE}`);
  }
  return value;
}

export class GatewayLakehouse implements LakehousePort {
  readonly engine = "lakehouse" as const;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly longTimeoutMs: number;
  private readonly healthTimeoutMs: number;

  constructor(private readonly opts: GatewayClientOptions) {
    this.base = opts.url.replace(/\/+$/, "");
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.longTimeoutMs = opts.longTimeoutMs ?? 120_000;
    this.healthTimeoutMs = opts.healthTimeoutMs ?? 2_000;
  }

  /** One gateway call; `allow` lists statuses returned to the caller instead of thrown. */
  async call<T>(
    method: Method,
    path: string,
    opts: { body?: unknown; timeoutMs?: number; allow?: number[] } = {},
  ): Promise<{ status: number; body: T }> {
    const what = `${method} ${path}`;
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.opts.token) headers["x-lab-token"] = this.opts.token;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: opts.body === undefined ? null : JSON.stringify(opts.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const e = err as Error;
      if (e.name === "TimeoutError" || e.name === "AbortError") {
        throw new AppError("unavailable", `Lakehouse gateway did not answer ${what} within ${timeoutMs} ms`);
      }
      throw new AppError("unavailable", `Lakehouse gateway unreachable at ${this.base} (${what}): ${e.message}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      const e = err as Error;
      const why = e.name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : e.message;
      throw new AppError("unavailable", `Lakehouse gateway answer to ${what} was cut off: ${why}`);
    }
    let body: unknown = null;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        throw new AppError("unavailable", `Lakehouse gateway answered ${what} with ${res.status} and a non-JSON body`);
      }
    }
    if (res.ok || opts.allow?.includes(res.status)) return { status: res.status, body: body as T };
    const detail =
      body && typeof body === "object" && typeof (body as { detail?: unknown }).detail === "string"
        ? (body as { detail: string }).detail
        : `HTTP ${res.status}`;
    if (res.status === 401 || res.status === 403) {
      throw new AppError("internal", `Lakehouse gateway refused ${what}: check CAIRN_LAB_TOKEN (${detail})`);
    }
    throw new AppError(codeFor(res.status), `Lakehouse gateway ${what} failed (${res.status}): ${detail}`);
  }

  private table(ns: string, table: string): string {
    return `/tables/${name("namespace", ns)}/${name("table", table)}`;
  }

  async health(): Promise<LakehouseHealth> {
    try {
      const { body } = await this.call<Record<string, unknown>>("GET", "/health", { timeoutMs: this.healthTimeoutMs });
      if (body?.status !== "ok") {
        return { status: "unavailable", error: `Lakehouse gateway reports status ${JSON.stringify(body?.status)}` };
      }
      return {
        status: "ok",
        catalog: String(body.catalog ?? ""),
        engine: String(body.engine ?? ""),
        warehouse: String(body.warehouse ?? ""),
      };
    } catch (err) {
      return { status: "unavailable", error: (err as Error).message };
    }
  }

  async ping(): Promise<void> {
    const h = await this.health();
    if (h.status !== "ok") throw new AppError("unavailable", h.error);
  }

  namespaceOf(t: TenantRef): string {
    return lakehouseNamespace(t.slug);
  }

  async ensureNamespace(t: TenantRef): Promise<string> {
    const ns = name("namespace", this.namespaceOf(t));
    await this.call("POST", "/namespaces", { body: { namespace: ns } });
    if (!(await this.namespaceExists(t))) {
      throw new AppError("unavailable", `Lakehouse namespace ${ns} was created but cannot be read back`);
    }
    return ns;
  }

  async namespaceExists(t: TenantRef): Promise<boolean> {
    const ns = name("namespace", this.namespaceOf(t));
    const { status } = await this.call("GET", `/namespaces/${ns}`, { allow: [404] });
    return status === 200;
  }

  async dropNamespace(t: TenantRef): Promise<void> {
    const ns = name("namespace", this.namespaceOf(t));
    // Already gone is what the caller wanted.
    await this.call("DELETE", `/namespaces/${ns}`, { allow: [404], timeoutMs: this.longTimeoutMs });
  }

  async smokeTest(t: TenantRef): Promise<void> {
    const ns = name("namespace", this.namespaceOf(t));
    const { body } = await this.call<{ ok?: boolean }>("POST", "/smoke", {
      body: { namespace: ns },
      timeoutMs: this.longTimeoutMs,
    });
    if (body?.ok !== true) throw new AppError("unavailable", `Lakehouse smoke test in ${ns} did not report ok`);
  }

  async listNamespaces(): Promise<string[]> {
    const { body } = await this.call<{ namespaces: string[] }>("GET", "/namespaces");
    return body.namespaces;
  }

  async close(): Promise<void> {
    // Stateless HTTP: nothing to release.
  }

  async listTables(namespace: string): Promise<string[]> {
    const { body } = await this.call<{ tables: string[] }>("GET", `/namespaces/${name("namespace", namespace)}/tables`);
    return body.tables;
  }

  async tableSchema(namespace: string, table: string): Promise<LakehouseColumn[]> {
    const { body } = await this.call<{ columns: LakehouseColumn[] }>("GET", `${this.table(namespace, table)}/schema`);
    return body.columns;
  }

  async preview(namespace: string, table: string, limit: number): Promise<LakehouseRows> {
    const n = Math.max(1, Math.min(1000, Math.trunc(limit)));
    const { body } = await this.call<LakehouseRows>("GET", `${this.table(namespace, table)}/preview?limit=${n}`);
    return body;
  }

  async sql(namespace: string, statement: string): Promise<LakehouseRows> {
    const { body } = await this.call<LakehouseRows>("POST", "/sql", {
      body: { namespace: name("namespace", namespace), sql: statement },
      timeoutMs: this.longTimeoutMs,
    });
    return body;
  }

  async write(namespace: string, table: string, req: WriteRequest): Promise<WriteResult> {
    const { body } = await this.call<WriteResult>("POST", `${this.table(namespace, table)}/write`, {
      body: req,
      timeoutMs: this.longTimeoutMs,
    });
    return body;
  }

  async snapshotProperties(namespace: string, table: string): Promise<Record<string, string> | null> {
    const { status, body } = await this.call<{ properties?: Record<string, string> } | null>(
      "GET",
      `${this.table(namespace, table)}/snapshot`,
      { allow: [404] },
    );
    if (status === 404) return null;
    return body?.properties ?? {};
  }
}
