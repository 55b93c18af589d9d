/**
 * ModelStore over a SqlClient (bun:sqlite and Postgres; table foundry_models in
 * foundry-migrations.ts). Lists, the progress and the lab's result are JSON text; every
 * query carries the tenant id, so a model id alone reaches nothing.
 */
import type { ModelRecord, ModelStatus, ProblemType } from "../../domain/foundry/models/model.ts";
import type { ModelPatch, ModelStore, NewModel } from "../../domain/foundry/models/ports.ts";
import type { JsonValue, SqlClient } from "../../domain/ports.ts";
import { type Encoders, jsonText, text, updateWhile } from "./foundry-patch.ts";

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  dataset_id: string;
  table_name: string;
  target_column: string;
  feature_columns: string;
  problem_type: string | null;
  status: string;
  progress: string | null;
  error: string | null;
  result: string | null;
  job_id: string;
  artifact_sha256: string | null;
  artifact_path: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  tuning_id: string | null;
  tuned_params: string | null;
}

function toModel(r: Row): ModelRecord {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    name: r.name,
    dataset_id: r.dataset_id,
    table_name: r.table_name,
    target_column: r.target_column,
    feature_columns: JSON.parse(r.feature_columns) as string[],
    problem_type: r.problem_type as ProblemType | null,
    status: r.status as ModelStatus,
    progress: r.progress == null ? null : (JSON.parse(r.progress) as JsonValue),
    error: r.error,
    result: r.result == null ? null : (JSON.parse(r.result) as Record<string, JsonValue>),
    job_id: r.job_id,
    artifact_sha256: r.artifact_sha256,
    artifact_path: r.artifact_path,
    created_at: r.created_at,
    updated_at: r.updated_at,
    finished_at: r.finished_at,
    tuning_id: r.tuning_id ?? null,
    tuned_params: r.tuned_params == null ? null : (JSON.parse(r.tuned_params) as Record<string, JsonValue>),
  };
}

const PATCH_COLUMNS: Encoders<ModelPatch> = {
  status: (v) => v as string,
  progress: jsonText,
  error: text,
  result: jsonText,
  artifact_sha256: text,
  artifact_path: text,
  finished_at: text,
};

export class SqlModelStore implements ModelStore {
  constructor(private readonly sql: SqlClient) {}

  async createModel(m: NewModel): Promise<ModelRecord> {
    const at = new Date().toISOString();
    await this.sql.run(
      `INSERT INTO foundry_models (id, tenant_id, name, dataset_id, table_name, target_column, feature_columns,
         problem_type, status, job_id, created_at, updated_at, tuning_id, tuned_params)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)`,
      [
        m.id,
        m.tenant_id,
        m.name,
        m.dataset_id,
        m.table_name,
        m.target_column,
        JSON.stringify(m.feature_columns),
        m.problem_type,
        m.job_id,
        at,
        at,
        m.tuning_id ?? null,
        jsonText(m.tuned_params),
      ],
    );
    return (await this.getModel(m.tenant_id, m.id)) as ModelRecord;
  }

  async getModel(tenantId: string, id: string): Promise<ModelRecord | null> {
    const r = await this.sql.get<Row>("SELECT * FROM foundry_models WHERE tenant_id = ? AND id = ?", [tenantId, id]);
    return r ? toModel(r) : null;
  }

  async listModels(tenantId: string): Promise<ModelRecord[]> {
    const rows = await this.sql.all<Row>("SELECT * FROM foundry_models WHERE tenant_id = ? ORDER BY created_at, id", [
      tenantId,
    ]);
    return rows.map(toModel);
  }

  async updateModel(
    tenantId: string,
    id: string,
    patch: ModelPatch,
    whenStatus?: ModelStatus[],
  ): Promise<ModelRecord | null> {
    const changed = await updateWhile(this.sql, "foundry_models", PATCH_COLUMNS, tenantId, id, patch, whenStatus);
    if (!changed) return null;
    return this.getModel(tenantId, id);
  }
}
