/**
 * The queued agent run (queue foundry-agents, job agents.run): a score or alert agent
 * predicts its entity's rows (alert: and notifies), a batch agent scores its whole table
 * (batch.ts). The run record carries the outcome; a failure (model not deployed, table
 * missing) is recorded as the run's error and not retried: the next fire runs again.
 */
import { AppError } from "../../../domain/errors.ts";
import type { AgentExecutor } from "../../../domain/foundry/agents/execute.ts";
import type { AgentEntity, AgentRecord } from "../../../domain/foundry/agents/model.ts";
import type { AgentLakehouse, AgentStore } from "../../../domain/foundry/agents/ports.ts";
import type { JobHandler, JsonValue } from "../../../domain/ports.ts";
import { lakehouseNamespace, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import { runBatch } from "./batch.ts";

export interface AgentRunDeps {
  store: AgentStore;
  executor: AgentExecutor;
  /** The tenant's lakehouse; null without a gateway (table entities and batch agents then fail). */
  lakehouse: AgentLakehouse | null;
  /** Rows per batch of a batch agent. */
  batchRows: number;
  now?: () => Date;
}

interface RunJob {
  tenant_id: string;
  slug: string;
  agent_id: string;
  run_id: string;
}

export function makeAgentRunHandler(deps: AgentRunDeps): JobHandler {
  const now = deps.now ?? (() => new Date());
  return async (job) => {
    const d = job.data as unknown as RunJob;
    const t: TenantRef = { tenantId: d.tenant_id, slug: d.slug };
    const run = await deps.store.getRun(d.tenant_id, d.run_id);
    if (!run || run.status === "succeeded" || run.status === "failed" || run.status === "skipped") {
      return { skipped: "the run is already finished" };
    }
    const agent = await deps.store.getAgent(d.tenant_id, d.agent_id);
    // Paused (or deleted) between the fire and this worker: the run does nothing.
    if (agent?.status !== "active") {
      await finish(deps, t, d.run_id, "skipped", null, `the agent is ${agent?.status ?? "gone"}`);
      return { skipped: "agent not active" };
    }
    await deps.store.updateRun(d.tenant_id, d.run_id, { status: "running" });
    try {
      const result =
        agent.agent_type === "batch"
          ? await runBatch({ ...deps, t, agent, runId: d.run_id })
          : await scoreEntity(deps, t, agent, d.run_id, now());
      await finish(deps, t, d.run_id, "succeeded", result, null);
      return result;
    } catch (err) {
      const msg = err instanceof AppError ? `${err.code}: ${err.message}` : (err as Error).message;
      await finish(deps, t, d.run_id, "failed", null, msg);
      return { failed: msg };
    }
  };
}

async function finish(
  deps: AgentRunDeps,
  t: TenantRef,
  runId: string,
  status: "succeeded" | "failed" | "skipped",
  result: JsonValue | null,
  error: string | null,
): Promise<void> {
  await deps.store.updateRun(t.tenantId, runId, { status, result, error, finished_at: new Date().toISOString() });
}

/** A score or alert agent: its entity's rows, predicted; the outcome is the run's result. */
async function scoreEntity(
  deps: AgentRunDeps,
  t: TenantRef,
  agent: AgentRecord,
  runId: string,
  at: Date,
): Promise<JsonValue> {
  const entity = agent.entity as AgentEntity;
  const rows = await entityRows(deps, t, entity);
  if (rows.length === 0) throw new AppError("not_found", `The entity has no rows (${describe(entity)})`);
  const out = await deps.executor.score(t, agent, rows, { keyColumn: entity.key_column, runId, at });
  return JSON.parse(JSON.stringify({ entity: describe(entity), rows: rows.length, ...out })) as JsonValue;
}

/** The entity's rows: stored with the agent, or read from the tenant's table by key (at most 100). */
async function entityRows(deps: AgentRunDeps, t: TenantRef, e: AgentEntity): Promise<Record<string, JsonValue>[]> {
  if (e.rows?.length) return e.rows;
  if (!deps.lakehouse) throw new AppError("unavailable", "No lakehouse is configured for table entities");
  const ns = lakehouseNamespace(t.slug);
  const res = await deps.lakehouse.sql(
    ns,
    // Names and the key are checked at creation (bare identifiers; a key without quotes or
    // backslashes), so the statement reads the same in DuckDB and Spark.
    `SELECT * FROM ${e.table} WHERE ${e.key_column} = ${typeof e.key === "number" ? e.key : `'${e.key}'`} LIMIT 100`,
  );
  return res.rows.map((r) => Object.fromEntries(res.columns.map((c, i) => [c.name, toJson(r[i])])));
}

function toJson(v: unknown): JsonValue {
  if (v === undefined) return null;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Date) return v.toISOString();
  return v as JsonValue;
}

function describe(e: AgentEntity): string {
  if (e.name) return e.name;
  if (e.table) return `${e.table}.${e.key_column}=${e.key}`;
  return `${e.rows?.length ?? 0} stored rows`;
}
