/**
 * FoundryLabPort over the lab's gateway (lab/src/lab/foundry/routes.py): dataset builds,
 * a namespace's schemas in one call, and previews moved as Arrow IPC streams and decoded
 * here with apache-arrow (no row-by-row JSON between the lab and the service).
 */
import { type Table, Type, tableFromIPC } from "apache-arrow";
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

  async schemas(namespace: string): Promise<Record<string, LakehouseColumn[]>> {
    const { body } = await this.gateway.call<{ tables: Record<string, LakehouseColumn[]> }>(
      "GET",
      `/foundry/schemas/${checked("namespace", namespace)}`,
    );
    return body.tables;
  }

  async preview(namespace: string, table: string, limit: number): Promise<LakehouseRows> {
    const n = Math.max(1, Math.min(1000, Math.trunc(limit)));
    const path = `/foundry/arrow/${checked("namespace", namespace)}/${checked("table", table)}?limit=${n}`;
    const headers: Record<string, string> = { accept: "application/vnd.apache.arrow.stream" };
    if (this.opts.token) headers["x-lab-token"] = this.opts.token;
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        headers,
        signal: AbortSignal.timeout(this.opts.previewTimeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new AppError("unavailable", `Lakehouse gateway unreachable for a preview: ${(err as Error).message}`);
    }
    if (!res.ok) {
      const detail = await res
        .json()
        .then((b) => String((b as { detail?: unknown }).detail ?? `HTTP ${res.status}`))
        .catch(() => `HTTP ${res.status}`);
      const code = res.status === 404 ? "not_found" : res.status === 400 ? "bad_request" : "unavailable";
      throw new AppError(code, `Lakehouse gateway preview failed (${res.status}): ${detail}`);
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
  const converters = table.schema.fields.map((f) => converterFor(f.type.typeId));
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

function converterFor(typeId: Type): (v: unknown) => unknown {
  switch (typeId) {
    case Type.Int:
      return (v) => (typeof v === "bigint" ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v);
    case Type.Date:
      return (v) => new Date(Number(v)).toISOString().slice(0, 10);
    case Type.Timestamp:
      return (v) => new Date(Number(v)).toISOString();
    case Type.Binary:
      return (v) => Buffer.from(v as Uint8Array).toString("base64");
    default:
      return identity;
  }
}
