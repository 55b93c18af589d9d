/**
 * TuningStore over a SqlClient (bun:sqlite and Postgres; table foundry_tunings in
 * foundry-migrations.ts). Features, progress and the lab's result are JSON text; every query
 * carries the tenant id, so an experiment id alone reaches nothing.
 */
import type {
  NewTuning,
  TuningPatch,
  TuningRecord,
  TuningStatus,
  TuningStore,
} from "../../domain/foundry/models/tuning-model.ts";
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
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

function toTuning(r: Row): TuningRecord {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    name: r.name,
    dataset_id: r.dataset_id,
    table_name: r.table_name,
    target_column: r.target_column,
    feature_columns: JSON.parse(r.feature_columns) as string[],
    problem_type: r.problem_type as TuningRecord["problem_type"],
    status: r.status as TuningStatus,
    progress: r.progress == null ? null : (JSON.parse(r.progress) as JsonValue),
    error: r.error,
    result: r.result == null ? null : (JSON.parse(r.result) as Record<string, JsonValue>),
    job_id: r.job_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    finished_at: r.finished_at,
  };
}

const PATCH_COLUMNS: Encoders<TuningPatch> = {
  status: (v) => v as string,
  progress: jsonText,
  error: text,
  result: jsonText,
  finished_at: text,
};

export class SqlTuningStore implements TuningStore {
  constructor(private readonly sql: SqlClient) {}

  async createTuning(x: NewTuning): Promise<TuningRecord> {
    const at = new Date().toISOString();
    await this.sql.run(
      `INSERT INTO foundry_tunings (id, tenant_id, name, dataset_id, table_name, target_column, feature_columns,
         problem_type, status, job_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
      [
        x.id,
        x.tenant_id,
        x.name,
        x.dataset_id,
        x.table_name,
        x.target_column,
        JSON.stringify(x.feature_columns),
        x.problem_type,
        x.job_id,
        at,
        at,
      ],
    );
    return (await this.getTuning(x.tenant_id, x.id)) as TuningRecord;
  }

  async getTuning(tenantId: string, id: string): Promise<TuningRecord | null> {
    const r = await this.sql.get<Row>("SELECT * FROM foundry_tunings WHERE tenant_id = ? AND id = ?", [tenantId, id]);
    return r ? toTuning(r) : null;
  }

  async updateTuning(
    tenantId: string,
    id: string,
    patch: TuningPatch,
    whenStatus?: TuningStatus[],
  ): Promise<TuningRecord | null> {
    const changed = await updateWhile(this.sql, "foundry_tunings", PATCH_COLUMNS, tenantId, id, patch, whenStatus);
    if (!changed) return null;
    return this.getTuning(tenantId, id);
  }
}
