/**
 * FoundryLabPort over the lab's gateway (lab/src/lab/foundry/routes.py): dataset builds,
 * a namespace's schemas in one call, and previews moved as Arrow IPC streams and decoded
 * here with apache-arrow (no row-by-row JSON between the lab and the service).
 */
import { type DataType, type Table, Type, tableFromIPC } from "apache-arrow";
import { AppError } from "../../domain/errors.ts";
import type { DatasetBuildRequest, DatasetBuildResult, FoundryLabPort } from "../../domain/foundry/ports.ts";
import { ICEBERG_NAME_RE } from "../../domain/lakehouse/catalog.ts";
import type { LakehouseColumn, LakehouseRows } from "../../domain/lakehouse/ports.ts";
import type { GatewayLakehouse } from "./gateway-client.ts";

export interface FoundryLabClientOptions {
  url: string;
  token?: string | undefined;
  /** Deadline of one build (config.foundry.buildTimeoutMs). */
  buildTimeoutMs: number;
  /** Deadline of a preview (default 30 s). */
  previewTimeoutMs?: number;
}

function checked(kind: string, value: string): string {
  if (!ICEBERG_NAME_RE.test(value)) throw new AppError("bad_request", `Invalid lakehouse ${kind} name '${value}'`);
  return value;
}

export class FoundryLabClient implements FoundryLabPort {
  private readonly base: string;

  constructor(
    private readonly gateway: GatewayLakehouse,
    private readonly opts: FoundryLabClientOptions,
  ) {
    this.base = opts.url.replace(/\/+$/, "");
  }

  async build(req: DatasetBuildRequest): Promise<DatasetBuildResult> {
    const { body } = await this.gateway.call<DatasetBuildResult>("POST", "/foundry/build", {
      body: req,
      timeoutMs: this.opts.buildTimeoutMs,
    });
    return body;
  }

  async checkTraining(req: {
    namespace: string;
    table: string;
    target_column: string;
    feature_columns?: string[];
    problem_type?: string | null;
    label_column?: string;
  }): Promise<Record<string, unknown>> {
    const { status, body } = await this.gateway.call<Record<string, unknown>>("POST", "/foundry/models/check", {
      body: req,
      timeoutMs: this.opts.buildTimeoutMs,
      allow: [422],
    });
    if (status === 422) {
      const msg = String(body?.detail ?? "the table cannot be trained on");
      const onTarget = msg.includes(req.target_column);
      throw AppError.validation([
        {
          loc: onTarget ? ["body", "target_column"] : ["body", "dataset_id"],
          msg,
          type: "value_error",
          input: onTarget ? req.target_column : req.table,
          ctx: {},
        },
      ]);
    }
    return body;
  }

  async schemas(namespace: string): Promise<Record<string, LakehouseColumn[]>> {
    const { body } = await this.gateway.call<{ tables: Record<string, LakehouseColumn[]> }>(
      "GET",
      `/foundry/schemas/${checked("namespace", namespace)}`,
    );
    return body.tables;
  }

  async preview(namespace: string, table: string, limit: number): Promise<LakehouseRows> {
    const n = Math.max(1, Math.min(1000, Math.trunc(limit)));
    return this.arrow("GET", `/foundry/arrow/${checked("namespace", namespace)}/${checked("table", table)}?limit=${n}`);
  }

  async sql(namespace: string, statement: string): Promise<LakehouseRows> {
    return this.arrow("POST", "/foundry/sql", { namespace: checked("namespace", namespace), sql: statement });
  }

  /** One call answered with an Arrow IPC stream, decoded into columns and JSON-ready rows. */
  private async arrow(method: "GET" | "POST", path: string, body?: unknown): Promise<LakehouseRows> {
    const headers: Record<string, string> = { accept: "application/vnd.apache.arrow.stream" };
    if (this.opts.token) headers["x-lab-token"] = this.opts.token;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.previewTimeoutMs ?? 120_000),
      });
    } catch (err) {
      throw new AppError(
        "unavailable",
        `Lakehouse gateway unreachable (${method} ${path.split("?")[0]}): ${(err as Error).message}`,
      );
    }
    if (!res.ok) {
      const detail = await res
        .json()
        .then((b) => String((b as { detail?: unknown }).detail ?? `HTTP ${res.status}`))
        .catch(() => `HTTP ${res.status}`);
      const code = res.status === 404 ? "not_found" : res.status === 400 ? "bad_request" : "unavailable";
      throw new AppError(code, `Lakehouse gateway ${method} ${path.split("?")[0]} failed (${res.status}): ${detail}`);
    }
    return arrowToRows(tableFromIPC(new Uint8Array(await res.arrayBuffer())));
  }
}

/** Iceberg columns from the stream's metadata (the lab puts them there), rows as JSON-ready values. */
export function arrowToRows(table: Table): LakehouseRows {
  const meta = table.schema.metadata.get("cairn.columns");
  const columns: LakehouseColumn[] = meta
    ? (JSON.parse(meta) as LakehouseColumn[])
    : table.schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable }));
  const converters = table.schema.fields.map((f) => converterFor(f.type));
  const vectors = table.schema.fields.map((_, i) => table.getChildAt(i));
  const rows: unknown[][] = [];
  for (let r = 0; r < table.numRows; r++) {
    rows.push(
      vectors.map((v, i) => {
        const value = v?.get(r);
        return value === null || value === undefined ? null : (converters[i] ?? identity)(value);
      }),
    );
  }
  return { columns, rows };
}

const identity = (v: unknown) => v;

/** Values in the gateway's JSON spelling (lab/src/lab/lakehouse/values.py to_json), so both paths read alike. */
function converterFor(type: DataType): (v: unknown) => unknown {
  switch (type.typeId) {
    case Type.Int:
      return (v) => (typeof v === "bigint" ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v);
    case Type.Float:
      return (v) => (typeof v === "number" && !Number.isFinite(v) ? null : v);
    case Type.Date:
      return (v) => new Date(Number(v)).toISOString().slice(0, 10);
    case Type.Timestamp: {
      const zoned = Boolean((type as { timezone?: string | null }).timezone);
      return (v) => isoLikePython(Number(v), zoned);
    }
    case Type.Binary:
      return (v) => Buffer.from(v as Uint8Array).toString("base64");
    default:
      return identity;
  }
}

/** `2024-01-02T03:04:05[.ffffff][+00:00]`, as Python's isoformat writes a UTC or naive datetime. */
function isoLikePython(ms: number, zoned: boolean): string {
  const d = new Date(ms);
  const frac = ((ms % 1000) + 1000) % 1000;
  const base = d.toISOString().slice(0, 19) + (frac ? `.${String(Math.round(frac * 1000)).padStart(6, "0")}` : "");
  return zoned ? `${base}+00:00` : base;
}
