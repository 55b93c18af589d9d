/**
 * DeploymentStore over a SqlClient (bun:sqlite and Postgres): the model registry
 * (foundry_deployments) and the bounded prediction log (foundry_predictions), DDL below,
 * applied by foundry-migrations.ts. Every registry query carries the tenant id.
 */
import type {
  Deployment,
  DeploymentStatus,
  PredictionLogEntry,
  ThresholdMetric,
} from "../../domain/foundry/serving/model.ts";
import type { DeploymentPatch, DeploymentStore, NewDeployment } from "../../domain/foundry/serving/ports.ts";
import type { JsonValue, Migration, SqlClient, SqlParam } from "../../domain/ports.ts";
import { type Encoders, updateWhile, value } from "./foundry-patch.ts";

const registry = `
  CREATE TABLE foundry_deployments (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    model_id TEXT NOT NULL,
    model_name TEXT NOT NULL,
    version INTEGER NOT NULL,
    artifact_sha256 TEXT NOT NULL,
    artifact_path TEXT NOT NULL,
    metrics TEXT,
    problem_type TEXT NOT NULL,
    threshold DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    threshold_metric TEXT,
    status TEXT NOT NULL,
    error TEXT,
    deployed_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (tenant_id, model_name),
    UNIQUE (tenant_id, model_id)
  );
  CREATE INDEX foundry_deployments_status ON foundry_deployments(status);
`;
const log = (seq: string) => `
  CREATE TABLE foundry_predictions (
    seq ${seq},
    deployment_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    inputs TEXT NOT NULL,
    output TEXT NOT NULL,
    at TEXT NOT NULL
  );
  CREATE INDEX foundry_predictions_deployment ON foundry_predictions(deployment_id, seq);
`;

/** Appended to FOUNDRY_MIGRATIONS (the log's sequence is the one dialect-specific column). */
export const SERVING_MIGRATION: Migration = {
  id: "foundry:serving_001",
  sqlite: registry + log("INTEGER PRIMARY KEY AUTOINCREMENT"),
  postgres: registry + log("BIGSERIAL PRIMARY KEY"),
};

interface Row {
  id: string;
  tenant_id: string;
  model_id: string;
  model_name: string;
  version: number | string;
  artifact_sha256: string;
  artifact_path: string;
  metrics: string | null;
  problem_type: string;
  threshold: number | string;
  threshold_metric: string | null;
  status: string;
  error: string | null;
  deployed_at: string;
  updated_at: string;
}

const toDeployment = (r: Row): Deployment => ({
  id: r.id,
  tenant_id: r.tenant_id,
  model_id: r.model_id,
  model_name: r.model_name,
  version: Number(r.version),
  artifact_sha256: r.artifact_sha256,
  artifact_path: r.artifact_path,
  metrics: r.metrics == null ? null : (JSON.parse(r.metrics) as Record<string, JsonValue>),
  problem_type: r.problem_type,
  threshold: Number(r.threshold),
  threshold_metric: r.threshold_metric as ThresholdMetric | null,
  status: r.status as DeploymentStatus,
  error: r.error,
  deployed_at: r.deployed_at,
  updated_at: r.updated_at,
});

/** Rows per INSERT of the log (5 parameters each). */
const LOG_CHUNK = 200;

const PATCH_COLUMNS: Encoders<DeploymentPatch> = {
  status: value,
  error: value,
  threshold: value,
  threshold_metric: value,
};

export class SqlDeploymentStore implements DeploymentStore {
  constructor(private readonly sql: SqlClient) {}

  async upsertDeployment(d: NewDeployment): Promise<Deployment | null> {
    const at = new Date().toISOString();
    try {
      return await this.sql.transaction(async (tx) => {
        const one = (col: string, v: string) =>
          tx.get<Row>(`SELECT * FROM foundry_deployments WHERE tenant_id = ? AND ${col} = ?`, [d.tenant_id, v]);
        const byName = await one("model_name", d.model_name);
        const byModel = await one("model_id", d.model_id);
        if ((byName && byName.model_id !== d.model_id) || (byModel && byModel.model_name !== d.model_name)) return null;
        if (byModel) {
          // A redeploy: the next version of the name, loaded again from the run's artifact.
          await tx.run(
            `UPDATE foundry_deployments SET version = version + 1, status = 'deploying', error = NULL,
               artifact_sha256 = ?, artifact_path = ?, metrics = ?, deployed_at = ?, updated_at = ? WHERE id = ?`,
            [d.artifact_sha256, d.artifact_path, JSON.stringify(d.metrics), at, at, byModel.id],
          );
          return toDeployment((await one("model_id", d.model_id)) as Row);
        }
        await tx.run(
          `INSERT INTO foundry_deployments (id, tenant_id, model_id, model_name, version, artifact_sha256,
             artifact_path, metrics, problem_type, threshold, status, deployed_at, updated_at)
             VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, 0.5, 'deploying', ?, ?)`,
          [
            d.id,
            d.tenant_id,
            d.model_id,
            d.model_name,
            d.artifact_sha256,
            d.artifact_path,
            JSON.stringify(d.metrics),
            d.problem_type,
            at,
            at,
          ],
        );
        return toDeployment((await one("model_id", d.model_id)) as Row);
      });
    } catch (err) {
      // Two deploys racing for one name: the unique constraint decides, the loser gets a 409.
      if (/unique|duplicate/i.test((err as Error).message)) return null;
      throw err;
    }
  }

  async getDeployment(tenantId: string, id: string): Promise<Deployment | null> {
    const r = await this.sql.get<Row>("SELECT * FROM foundry_deployments WHERE tenant_id = ? AND id = ?", [
      tenantId,
      id,
    ]);
    return r ? toDeployment(r) : null;
  }

  async getByModel(tenantId: string, modelId: string): Promise<Deployment | null> {
    const r = await this.sql.get<Row>("SELECT * FROM foundry_deployments WHERE tenant_id = ? AND model_id = ?", [
      tenantId,
      modelId,
    ]);
    return r ? toDeployment(r) : null;
  }

  async getByName(tenantId: string, modelName: string): Promise<Deployment | null> {
    const r = await this.sql.get<Row>("SELECT * FROM foundry_deployments WHERE tenant_id = ? AND model_name = ?", [
      tenantId,
      modelName,
    ]);
    return r ? toDeployment(r) : null;
  }

  async listByStatus(status: DeploymentStatus): Promise<Deployment[]> {
    const rows = await this.sql.all<Row>("SELECT * FROM foundry_deployments WHERE status = ? ORDER BY deployed_at", [
      status,
    ]);
    return rows.map(toDeployment);
  }

  async updateDeployment(
    tenantId: string,
    id: string,
    patch: DeploymentPatch,
    whenStatus?: DeploymentStatus[],
  ): Promise<Deployment | null> {
    const changed = await updateWhile(this.sql, "foundry_deployments", PATCH_COLUMNS, tenantId, id, patch, whenStatus);
    return changed ? this.getDeployment(tenantId, id) : null;
  }

  async appendPredictions(deploymentId: string, entries: PredictionLogEntry[], keep: number): Promise<void> {
    if (!entries.length) return;
    await this.sql.transaction(async (tx) => {
      for (let i = 0; i < entries.length; i += LOG_CHUNK) {
        const chunk = entries.slice(i, i + LOG_CHUNK);
        const params: SqlParam[] = [];
        for (const e of chunk) {
          params.push(deploymentId, e.version, JSON.stringify(e.inputs), JSON.stringify(e.output), e.at);
        }
        await tx.run(
          `INSERT INTO foundry_predictions (deployment_id, version, inputs, output, at) VALUES ${chunk
            .map(() => "(?, ?, ?, ?, ?)")
            .join(", ")}`,
          params,
        );
      }
      // The bound: everything older than the newest `keep` entries of the deployment goes.
      await tx.run(
        `DELETE FROM foundry_predictions WHERE deployment_id = ? AND seq <= (
           SELECT seq FROM foundry_predictions WHERE deployment_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
        [deploymentId, deploymentId, keep],
      );
    });
  }

  async recentPredictions(deploymentId: string, limit: number): Promise<PredictionLogEntry[]> {
    const rows = await this.sql.all<{ version: number | string; inputs: string; output: string; at: string }>(
      "SELECT version, inputs, output, at FROM foundry_predictions WHERE deployment_id = ? ORDER BY seq DESC LIMIT ?",
      [deploymentId, limit],
    );
    return rows.map((r) => ({
      inputs: JSON.parse(r.inputs) as Record<string, JsonValue>,
      output: JSON.parse(r.output) as Record<string, JsonValue>,
      version: Number(r.version),
      at: r.at,
    }));
  }
}
