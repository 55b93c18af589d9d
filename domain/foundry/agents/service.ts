/**
 * Foundry agents (spec 2.7, 3.3, 4.9, 6.2; docs/foundry-agents.md): create, list, read,
 * pause, resume, delete, and run. A predict agent answers on demand; an alert agent run on
 * demand also notifies; score and batch agents run as queued jobs, on their cron (the
 * scheduler in pipelines/foundry/agents/) or when asked (a manual run).
 */
import { AppError } from "../../errors.ts";
import type { JsonValue } from "../../ports.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import type { AgentExecutor, ScoreOutcome } from "./execute.ts";
import {
  type AgentRecord,
  type AgentRequest,
  type AgentStatus,
  agentIssues,
  agentView,
  isScheduled,
  MAX_RUN_ROWS,
  nextFire,
} from "./model.ts";
import { AGENT_RUN_JOB, AGENT_RUN_QUEUE, type AgentQueue, type AgentStore } from "./ports.ts";

/** Runs and notifications one read returns (newest first). */
export const HISTORY_LIMIT = 100;

export interface FoundryAgentsDeps {
  store: AgentStore;
  executor: AgentExecutor;
  queue: AgentQueue;
  now?: () => Date;
}

export class FoundryAgents {
  private readonly now: () => Date;

  constructor(private readonly deps: FoundryAgentsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** POST /v1/foundry/agents: every rule checked (422), stored active; the first fire time computed. */
  async create(t: TenantRef, req: AgentRequest) {
    const issues = agentIssues(req);
    if (issues.length) throw AppError.validation(issues);
    const id = crypto.randomUUID();
    const type = req.agent_type ?? "predict";
    const draft = { agent_type: type, schedule_cron: req.schedule_cron ?? null, entity: req.entity ?? null };
    const next = isScheduled(draft) ? nextFire(draft.schedule_cron as string, this.now()) : null;
    const a = await this.deps.store.createAgent({
      id,
      tenant_id: t.tenantId,
      name: req.name.trim(),
      description: req.description ?? null,
      registry_id: req.registry_id ?? null,
      agent_type: type,
      alert_threshold: req.alert_threshold ?? null,
      alert_channel: req.alert_channel ?? null,
      alert_webhook: req.alert_webhook ?? null,
      schedule_cron: draft.schedule_cron,
      batch_dag_id: req.batch_dag_id ?? (type === "batch" ? `agent-${id}-batch` : null),
      entity: draft.entity,
      next_fire_at: next ? next.toISOString() : null,
    });
    return {
      id: a.id,
      name: a.name,
      agent_type: a.agent_type,
      status: "active" as const,
      call_count: 0 as const,
      created_at: a.created_at,
    };
  }

  async list(t: TenantRef) {
    return (await this.deps.store.listAgents(t.tenantId)).map(agentView);
  }

  async get(t: TenantRef, id: string) {
    return agentView(await this.record(t, id));
  }

  /** Paused agents neither run nor alert; their fire time is dropped (resume computes a new one). */
  async pause(t: TenantRef, id: string) {
    return this.move(t, id, ["active", "paused"], "paused", null);
  }

  /** Back to active; a scheduled agent's next fire is the cron's next after now (no catch-up). */
  async resume(t: TenantRef, id: string) {
    const a = await this.record(t, id);
    const next = isScheduled(a) ? nextFire(a.schedule_cron as string, this.now()) : null;
    return this.move(t, id, ["paused", "active"], "active", next ? next.toISOString() : null);
  }

  /** Deleted agents leave every listing and answer 404 afterwards. */
  async remove(t: TenantRef, id: string) {
    return this.move(t, id, ["active", "paused"], "deleted", null);
  }

  /**
   * POST .../run. predict and alert: `rows` are scored now and the predictions returned (alert:
   * with the notifications claimed). score and batch: a manual run is queued (202).
   */
  async run(
    t: TenantRef,
    id: string,
    body: { rows?: Record<string, JsonValue>[]; key_column?: string },
  ): Promise<{ kind: "scored"; body: ScoreOutcome & { agent_id: string } } | { kind: "queued"; body: object }> {
    const a = await this.record(t, id);
    if (a.status !== "active") throw new AppError("conflict", `Agent '${a.name}' is ${a.status}`);
    if (a.agent_type === "score" || a.agent_type === "batch") {
      const runId = await this.queueRun(t, a, "manual", null);
      return { kind: "queued", body: { agent_id: a.id, run_id: runId, status: "queued" } };
    }
    const rows = body.rows ?? [];
    if (rows.length === 0 || rows.length > MAX_RUN_ROWS) {
      throw AppError.validation([
        {
          loc: ["body", "rows"],
          msg: `rows must hold 1 to ${MAX_RUN_ROWS} rows`,
          type: "value_error",
          input: rows.length,
          ctx: { max: MAX_RUN_ROWS },
        },
      ]);
    }
    const out = await this.deps.executor.score(t, a, rows, { keyColumn: body.key_column, runId: null, at: this.now() });
    return { kind: "scored", body: { agent_id: a.id, ...out } };
  }

  async runs(t: TenantRef, id: string) {
    await this.record(t, id);
    return this.deps.store.listRuns(t.tenantId, id, HISTORY_LIMIT);
  }

  async alerts(t: TenantRef, id: string) {
    await this.record(t, id);
    return this.deps.store.listAlerts(t.tenantId, id, HISTORY_LIMIT);
  }

  /** Stores a queued run and enqueues it under the run's id (the queue deduplicates by id). */
  async queueRun(t: TenantRef, a: AgentRecord, trigger: "schedule" | "manual", fireAt: string | null) {
    const runId = crypto.randomUUID();
    const fresh = await this.deps.store.createRun({
      id: runId,
      agent_id: a.id,
      tenant_id: t.tenantId,
      trigger,
      fire_at: fireAt,
      status: "queued",
      progress: null,
      result: null,
      error: null,
    });
    if (!fresh) return null;
    await this.deps.queue.enqueue(
      AGENT_RUN_QUEUE,
      AGENT_RUN_JOB,
      { tenant_id: t.tenantId, slug: t.slug, agent_id: a.id, run_id: runId },
      // A worker lost mid-run is retried once; the run's own failures are recorded, not retried.
      { jobId: runId, attempts: 2 },
    );
    return runId;
  }

  /** The tenant's agent; deleted ones are gone (404). */
  private async record(t: TenantRef, id: string): Promise<AgentRecord> {
    const a = await this.deps.store.getAgent(t.tenantId, id);
    if (!a || a.status === "deleted") throw new AppError("not_found", `No agent '${id}'`);
    return a;
  }

  private async move(t: TenantRef, id: string, from: AgentStatus[], to: AgentStatus, next: string | null) {
    const a = await this.record(t, id);
    const moved = await this.deps.store.transition(t.tenantId, a.id, from, to, next);
    if (!moved) throw new AppError("conflict", `Agent '${a.name}' changed meanwhile; read it and try again`);
    return agentView(moved);
  }
}
