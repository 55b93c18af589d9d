/**
 * DatasetStore over a SqlClient (bun:sqlite and Postgres; tables in foundry-migrations.ts).
 * The spec and progress are JSON text, timestamps ISO-8601 text, as elsewhere in the
 * control plane. Every query carries the tenant id: a dataset id alone reaches nothing.
 */
import { AppError } from "../../domain/errors.ts";
import type { Dataset, DatasetSpec, DatasetStatus } from "../../domain/foundry/dataset.ts";
import type { DatasetPatch, DatasetStore, NewDataset } from "../../domain/foundry/ports.ts";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  output_table: string;
  spec: string;
  status: string;
  row_count: number | string;
  created_at: string;
  last_built_at: string | null;
  sql_text: string | null;
  error: string | null;
  progress: string | null;
  build_id: string | null;
}

function toDataset(r: Row): Dataset {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    name: r.name,
    description: r.description,
    output_table: r.output_table,
    spec: JSON.parse(r.spec) as DatasetSpec,
    status: r.status as DatasetStatus,
    row_count: Number(r.row_count),
    created_at: r.created_at,
    last_built_at: r.last_built_at,
    sql: r.sql_text,
    error: r.error,
    progress: r.progress ? (JSON.parse(r.progress) as Dataset["progress"]) : null,
    build_id: r.build_id,
  };
}

/** Patch keys -> columns, and how each value is stored. */
const PATCH_COLUMNS: Record<keyof DatasetPatch, { col: string; enc: (v: unknown) => SqlParam }> = {
  status: { col: "status", enc: (v) => v as string },
  row_count: { col: "row_count", enc: (v) => v as number },
  last_built_at: { col: "last_built_at", enc: (v) => (v ?? null) as string | null },
  sql: { col: "sql_text", enc: (v) => (v ?? null) as string | null },
  error: { col: "error", enc: (v) => (v ?? null) as string | null },
  progress: { col: "progress", enc: (v) => (v == null ? null : JSON.stringify(v)) },
  build_id: { col: "build_id", enc: (v) => (v ?? null) as string | null },
};

export class SqlDatasetStore implements DatasetStore {
  constructor(private readonly sql: SqlClient) {}

  async createDataset(d: NewDataset): Promise<Dataset> {
    const id = crypto.randomUUID();
    const at = new Date().toISOString();
    const clash = await this.sql.get<{ name: string; output_table: string }>(
      "SELECT name, output_table FROM foundry_datasets WHERE tenant_id = ? AND (name = ? OR output_table = ?)",
      [d.tenant_id, d.name, d.output_table],
    );
    if (clash) throw conflict(d, clash);
    try {
      await this.sql.run(
        `INSERT INTO foundry_datasets (id, tenant_id, name, description, output_table, spec, status, row_count,
           created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'draft', 0, ?, ?)`,
        [id, d.tenant_id, d.name, d.description, d.output_table, JSON.stringify(d.spec), at, at],
      );
    } catch (err) {
      // A concurrent create of the same name won the unique constraint.
      const raced = await this.sql.get<{ name: string; output_table: string }>(
        "SELECT name, output_table FROM foundry_datasets WHERE tenant_id = ? AND (name = ? OR output_table = ?)",
        [d.tenant_id, d.name, d.output_table],
      );
      if (raced) throw conflict(d, raced);
      throw err;
    }
    return (await this.getDataset(d.tenant_id, id)) as Dataset;
  }

  async getDataset(tenantId: string, id: string): Promise<Dataset | null> {
    const r = await this.sql.get<Row>("SELECT * FROM foundry_datasets WHERE tenant_id = ? AND id = ?", [tenantId, id]);
    return r ? toDataset(r) : null;
  }

  async listDatasets(tenantId: string): Promise<Dataset[]> {
    const rows = await this.sql.all<Row>("SELECT * FROM foundry_datasets WHERE tenant_id = ? ORDER BY created_at, id", [
      tenantId,
    ]);
    return rows.map(toDataset);
  }

  async updateDataset(
    tenantId: string,
    id: string,
    patch: DatasetPatch,
    buildId: string | null = null,
  ): Promise<Dataset | null> {
    const sets: string[] = ["updated_at = ?"];
    const params: SqlParam[] = [new Date().toISOString()];
    for (const [key, value] of Object.entries(patch) as [keyof DatasetPatch, unknown][]) {
      const spec = PATCH_COLUMNS[key];
      if (!spec) throw new Error(`updateDataset: unknown field ${String(key)}`);
      sets.push(`${spec.col} = ?`);
      params.push(spec.enc(value));
    }
    params.push(tenantId, id);
    let where = "tenant_id = ? AND id = ?";
    if (buildId !== null) {
      where += " AND build_id = ?";
      params.push(buildId);
    }
    const { changes } = await this.sql.run(`UPDATE foundry_datasets SET ${sets.join(", ")} WHERE ${where}`, params);
    if (changes === 0) return null;
    return this.getDataset(tenantId, id);
  }
}

function conflict(d: NewDataset, clash: { name: string; output_table: string }): AppError {
  return clash.name === d.name
    ? new AppError("conflict", `A dataset named '${d.name}' already exists`)
    : new AppError(
        "conflict",
        `Dataset '${clash.name}' already writes table '${d.output_table}': choose a name that differs in more than case or punctuation`,
      );
}
