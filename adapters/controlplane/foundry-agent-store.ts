/**
 * AgentStore over a SqlClient (bun:sqlite and Postgres; tables foundry_agents,
 * foundry_agent_runs, foundry_agent_alerts in foundry-migrations.ts). The scheduler's claims
 * are single conditional statements: an UPDATE ... WHERE next_fire_at = <due> that one
 * instance wins, and INSERT ... ON CONFLICT DO NOTHING on the unique (agent, fire time) of
 * runs and (agent, entity, window) of alerts.
 */
import type { AgentEntity, AgentRecord, AgentStatus } from "../../domain/foundry/agents/model.ts";
import type {
  AgentAlert,
  AgentRun,
  AgentStore,
  AlertPatch,
  NewAgent,
  RunPatch,
} from "../../domain/foundry/agents/ports.ts";
import type { JsonValue, SqlClient, SqlParam } from "../../domain/ports.ts";

type Row = Omit<AgentRecord, "entity" | "alert_threshold" | "call_count"> & {
  entity: string | null;
  alert_threshold: number | string | null;
  call_count: number | string;
};
type RunRow = Omit<AgentRun, "progress" | "result" | "trigger"> & {
  run_trigger: string;
  progress: string | null;
  result: string | null;
};
type AlertRow = Omit<AgentAlert, "score" | "attempts"> & { score: number | string; attempts: number | string };

function toAgent(r: Row): AgentRecord {
  return {
    ...r,
    alert_threshold: r.alert_threshold == null ? null : Number(r.alert_threshold),
    call_count: Number(r.call_count),
    entity: r.entity == null ? null : (JSON.parse(r.entity) as AgentEntity),
  };
}

function toRun(r: RunRow): AgentRun {
  const { run_trigger, ...rest } = r;
  return {
    ...rest,
    trigger: run_trigger as AgentRun["trigger"],
    progress: r.progress == null ? null : (JSON.parse(r.progress) as JsonValue),
    result: r.result == null ? null : (JSON.parse(r.result) as JsonValue),
  };
}

const toAlert = (r: AlertRow): AgentAlert => ({ ...r, score: Number(r.score), attempts: Number(r.attempts) });
const jsonText = (v: unknown) => (v == null ? null : JSON.stringify(v));

/** Builds `SET a = ?, b = ?` from a patch; JSON columns are encoded. */
function sets(patch: object, json: string[]): { sql: string; params: SqlParam[] } {
  const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
  return {
    sql: entries.map(([k]) => `${k} = ?`).join(", "),
    params: entries.map(([k, v]) => (json.includes(k) ? jsonText(v) : (v as SqlParam))),
  };
}

export class SqlAgentStore implements AgentStore {
  constructor(private readonly sql: SqlClient) {}

  async createAgent(a: NewAgent): Promise<AgentRecord> {
    const at = new Date().toISOString();
    await this.sql.run(
      `INSERT INTO foundry_agents (id, tenant_id, name, description, registry_id, agent_type, alert_threshold,
         alert_channel, alert_webhook, schedule_cron, batch_dag_id, entity, status, call_count, created_at, updated_at,
         next_fire_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', 0, ?, ?, ?)`,
      [
        a.id,
        a.tenant_id,
        a.name,
        a.description,
        a.registry_id,
        a.agent_type,
        a.alert_threshold,
        a.alert_channel,
        a.alert_webhook,
        a.schedule_cron,
        a.batch_dag_id,
        jsonText(a.entity),
        at,
        at,
        a.next_fire_at,
      ],
    );
    return (await this.getAgent(a.tenant_id, a.id)) as AgentRecord;
  }

  async getAgent(tenantId: string, id: string): Promise<AgentRecord | null> {
    const r = await this.sql.get<Row>("SELECT * FROM foundry_agents WHERE tenant_id = ? AND id = ?", [tenantId, id]);
    return r ? toAgent(r) : null;
  }

  async listAgents(tenantId: string): Promise<AgentRecord[]> {
    const rows = await this.sql.all<Row>(
      "SELECT * FROM foundry_agents WHERE tenant_id = ? AND status <> 'deleted' ORDER BY created_at, id",
      [tenantId],
    );
    return rows.map(toAgent);
  }

  async transition(
    tenantId: string,
    id: string,
    from: AgentStatus[],
    to: AgentStatus,
    nextFireAt: string | null,
  ): Promise<AgentRecord | null> {
    const { changes } = await this.sql.run(
      `UPDATE foundry_agents SET status = ?, next_fire_at = ?, updated_at = ?
         WHERE tenant_id = ? AND id = ? AND status IN (${from.map(() => "?").join(", ")})`,
      [to, nextFireAt, new Date().toISOString(), tenantId, id, ...from],
    );
    return changes === 0 ? null : this.getAgent(tenantId, id);
  }

  async countCall(tenantId: string, id: string): Promise<number | null> {
    const r = await this.sql.get<{ call_count: number | string }>(
      `UPDATE foundry_agents SET call_count = call_count + 1
         WHERE tenant_id = ? AND id = ? AND status = 'active' RETURNING call_count`,
      [tenantId, id],
    );
    return r ? Number(r.call_count) : null;
  }

  async dueAgents(now: string, limit: number): Promise<AgentRecord[]> {
    const rows = await this.sql.all<Row>(
      `SELECT * FROM foundry_agents WHERE status = 'active' AND next_fire_at IS NOT NULL AND next_fire_at <= ?
         ORDER BY next_fire_at, id LIMIT ?`,
      [now, limit],
    );
    return rows.map(toAgent);
  }

  async claimFire(id: string, due: string, next: string | null): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE foundry_agents SET next_fire_at = ?, last_fire_at = ?
         WHERE id = ? AND status = 'active' AND next_fire_at = ?`,
      [next, due, id, due],
    );
    return changes === 1;
  }

  async createRun(r: Omit<AgentRun, "created_at" | "finished_at">): Promise<boolean> {
    const { changes } = await this.sql.run(
      `INSERT INTO foundry_agent_runs (id, agent_id, tenant_id, run_trigger, fire_at, status, progress, result, error,
         created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [
        r.id,
        r.agent_id,
        r.tenant_id,
        r.trigger,
        r.fire_at,
        r.status,
        jsonText(r.progress),
        jsonText(r.result),
        r.error,
        new Date().toISOString(),
      ],
    );
    return changes === 1;
  }

  async getRun(tenantId: string, id: string): Promise<AgentRun | null> {
    const r = await this.sql.get<RunRow>("SELECT * FROM foundry_agent_runs WHERE tenant_id = ? AND id = ?", [
      tenantId,
      id,
    ]);
    return r ? toRun(r) : null;
  }

  async updateRun(tenantId: string, id: string, patch: RunPatch): Promise<void> {
    const s = sets(patch, ["progress", "result"]);
    if (!s.params.length) return;
    await this.sql.run(`UPDATE foundry_agent_runs SET ${s.sql} WHERE tenant_id = ? AND id = ?`, [
      ...s.params,
      tenantId,
      id,
    ]);
  }

  async listRuns(tenantId: string, agentId: string, limit: number): Promise<AgentRun[]> {
    const rows = await this.sql.all<RunRow>(
      `SELECT * FROM foundry_agent_runs WHERE tenant_id = ? AND agent_id = ?
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      [tenantId, agentId, limit],
    );
    return rows.map(toRun);
  }

  async unfinishedRuns(agentId: string): Promise<number> {
    const r = await this.sql.get<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM foundry_agent_runs WHERE agent_id = ? AND status IN ('queued', 'running')",
      [agentId],
    );
    return Number(r?.n ?? 0);
  }

  async createAlert(a: Omit<AgentAlert, "created_at" | "delivered_at" | "attempts" | "last_error">): Promise<boolean> {
    const { changes } = await this.sql.run(
      `INSERT INTO foundry_agent_alerts (id, agent_id, tenant_id, run_id, entity_key, window_start, score, channel,
         status, attempts, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT DO NOTHING`,
      [
        a.id,
        a.agent_id,
        a.tenant_id,
        a.run_id,
        a.entity_key,
        a.window_start,
        a.score,
        a.channel,
        a.status,
        new Date().toISOString(),
      ],
    );
    return changes === 1;
  }

  async getAlert(tenantId: string, id: string): Promise<AgentAlert | null> {
    const r = await this.sql.get<AlertRow>("SELECT * FROM foundry_agent_alerts WHERE tenant_id = ? AND id = ?", [
      tenantId,
      id,
    ]);
    return r ? toAlert(r) : null;
  }

  async updateAlert(tenantId: string, id: string, patch: AlertPatch): Promise<void> {
    const s = sets(patch, []);
    if (!s.params.length) return;
    await this.sql.run(`UPDATE foundry_agent_alerts SET ${s.sql} WHERE tenant_id = ? AND id = ?`, [
      ...s.params,
      tenantId,
      id,
    ]);
  }

  async listAlerts(tenantId: string, agentId: string, limit: number): Promise<AgentAlert[]> {
    const rows = await this.sql.all<AlertRow>(
      `SELECT * FROM foundry_agent_alerts WHERE tenant_id = ? AND agent_id = ?
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      [tenantId, agentId, limit],
    );
    return rows.map(toAlert);
  }
}
