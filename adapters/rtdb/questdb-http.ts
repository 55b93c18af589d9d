/**
 * QuestDB's HTTP endpoints: `/exec` (SQL, JSON results), `/exp` (query results as Parquet)
 * and the ILP-over-HTTP settings for @questdb/nodejs-client. Credentials in the URL
 * (`http://user:pass@host:9000`) become HTTP basic auth and the ILP username/password.
 *
 * /exec takes no bind parameters: callers splice only validated identifiers and literals
 * escaped with `sqlString`.
 */
import { AppError } from "../../domain/errors.ts";

export interface ExecResult {
  columns: { name: string; type: string }[];
  dataset: unknown[][];
}

/** A statement QuestDB refused (HTTP 400 with `{error, position}`). */
export class QuestDbError extends Error {
  override readonly name = "QuestDbError";
  constructor(
    message: string,
    readonly position: number | null,
    readonly sql: string,
  ) {
    super(message);
  }
}

export interface QuestDbHttpOptions {
  url: string;
  /** Per request; default 60 s. */
  timeoutMs?: number;
}

export class QuestDbHttp {
  readonly base: string;
  private readonly headers: Record<string, string> = {};
  private readonly user: string | null;
  private readonly password: string | null;
  private readonly timeoutMs: number;

  constructor(opts: QuestDbHttpOptions) {
    const u = new URL(opts.url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`QuestDB URL must be http(s): ${opts.url}`);
    this.user = u.username ? decodeURIComponent(u.username) : null;
    this.password = u.password ? decodeURIComponent(u.password) : null;
    if (this.user !== null) {
      this.headers.authorization = `Basic ${Buffer.from(`${this.user}:${this.password ?? ""}`).toString("base64")}`;
    }
    u.username = "";
    u.password = "";
    this.base = u.toString().replace(/\/+$/, "");
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  private closed = false;

  /** Every later call is refused (unavailable). */
  close(): void {
    this.closed = true;
  }

  /** Runs one statement; rows of a query, or an empty result for DDL/DML. */
  async exec(sql: string): Promise<ExecResult> {
    const res = await this.get("/exec", { query: sql });
    const body = (await res.json().catch(() => null)) as
      | (Partial<ExecResult> & { error?: string; position?: number })
      | null;
    if (!res.ok || body === null || typeof body.error === "string") {
      if (res.status >= 500 || body === null) {
        throw new AppError("unavailable", `QuestDB answered ${res.status} to a statement`);
      }
      throw new QuestDbError(body.error ?? `HTTP ${res.status}`, body.position ?? null, sql);
    }
    return { columns: body.columns ?? [], dataset: body.dataset ?? [] };
  }

  /** Rows as objects keyed by column name. */
  async rows(sql: string): Promise<Record<string, unknown>[]> {
    const { columns, dataset } = await this.exec(sql);
    return dataset.map((row) => Object.fromEntries(columns.map((c, i) => [c.name, row[i]])));
  }

  /** Streams a query's result as a Parquet file to `file`. */
  async exportParquet(sql: string, file: string): Promise<void> {
    const res = await this.get("/exp", { query: sql, fmt: "parquet" });
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      let message = text.slice(0, 500);
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? message;
      } catch {}
      if (res.status >= 500) throw new AppError("unavailable", `QuestDB export failed (${res.status}): ${message}`);
      throw new QuestDbError(message || `HTTP ${res.status}`, null, sql);
    }
    await Bun.write(file, res);
  }

  /** The @questdb/nodejs-client configuration string for ILP over HTTP (node:http transport: Bun lacks undici's Agent.request). */
  ilpConfig(extra: Record<string, string | number> = {}): string {
    const u = new URL(this.base);
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    const parts = [`addr=${u.hostname}:${port}`, "stdlib_http=on"];
    if (this.user !== null) parts.push(`username=${this.user}`, `password=${this.password ?? ""}`);
    for (const [k, v] of Object.entries(extra)) parts.push(`${k}=${v}`);
    return `${u.protocol === "https:" ? "https" : "http"}::${parts.join(";")};`;
  }

  /**
   * Sends one ILP body to `/write` (QuestDB commits one request as one transaction). A refusal
   * (4xx) is `bad_request` with QuestDB's message, which names the offending line; anything else
   * is `unavailable`. The body is the encoder's UTF-8 bytes, sent as they are (no copy into a
   * string and back); the caller must not change them until this returns.
   */
  async writeIlp(body: Uint8Array<ArrayBuffer> | string): Promise<void> {
    if (this.closed) throw new AppError("unavailable", "time-series adapter is closed");
    let res: Response;
    try {
      res = await fetch(`${this.base}/write?precision=n`, {
        method: "POST",
        headers: { ...this.headers, "content-type": "text/plain; charset=utf-8" },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new AppError("unavailable", `QuestDB is unreachable at ${this.base}: ${(err as Error).message}`);
    }
    if (res.ok) {
      await res.body?.cancel();
      return;
    }
    const text = await res.text().catch(() => "");
    let message = text.slice(0, 300);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {}
    throw new AppError(
      res.status >= 400 && res.status < 500 ? "bad_request" : "unavailable",
      `HTTP ${res.status}: ${message}`,
    );
  }

  private async get(path: string, params: Record<string, string>): Promise<Response> {
    if (this.closed) throw new AppError("unavailable", "time-series adapter is closed");
    const url = `${this.base}${path}?${new URLSearchParams(params).toString()}`;
    try {
      return await fetch(url, { headers: this.headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new AppError("unavailable", `QuestDB is unreachable at ${this.base}: ${(err as Error).message}`);
    }
  }
}

/** A SQL string literal. */
export function sqlString(text: string): string {
  if (text.includes("\0")) throw new AppError("bad_request", "NUL in a string literal");
  return `'${text.replaceAll("'", "''")}'`;
}

/** A double-quoted identifier; names reaching here already match TABLE_NAME_PATTERN. */
export function sqlIdent(name: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new AppError("bad_request", `invalid identifier '${name}'`);
  return `"${name}"`;
}
