/**
 * Scoring rows for an agent, the one path on-demand runs (POST .../run) and scheduled runs
 * (pipelines/foundry/agents/) share: predict through the deployed model, count the call,
 * and for alert agents claim one notification per entity and window and queue its delivery
 * (the queue retries it with exponential backoff; pipelines/foundry/agents/notify.ts).
 */
import { AppError } from "../../errors.ts";
import type { JsonValue } from "../../ports.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import { entityKey, exceeds, windowStart } from "./alerts.ts";
import type { AgentRecord } from "./model.ts";
import {
  AGENT_ALERT_JOB,
  AGENT_ALERT_QUEUE,
  type AgentPrediction,
  type AgentPredictor,
  type AgentQueue,
  type AgentStore,
} from "./ports.ts";

export interface AgentTuning {
  /** Length of the deduplication window of alerts, ms (one notification per agent, entity, window). */
  alertWindowMs: number;
  /** Delivery attempts of one notification, the first included. */
  alertAttempts: number;
  /** Backoff base between attempts, ms: base * 2^(attempt-1). */
  alertBackoffMs: number;
  /** Notifications one run may queue; entities past it are counted, not notified. */
  maxAlertsPerRun: number;
}

export interface AlertOutcome {
  entity_key: string;
  score: number;
  /** queued: a notification was claimed and queued; duplicate: its window already had one. */
  status: "queued" | "duplicate";
  alert_id: string | null;
}

export interface ScoreOutcome {
  predictions: AgentPrediction[];
  call_count: number;
  alerts?: AlertOutcome[];
  alerts_over_limit?: number;
}

export interface AgentExecutorDeps {
  store: AgentStore;
  predictor: AgentPredictor;
  queue: AgentQueue;
  tuning: AgentTuning;
}

export class AgentExecutor {
  constructor(private readonly deps: AgentExecutorDeps) {}

  get tuning(): AgentTuning {
    return this.deps.tuning;
  }

  /** Predicts `rows` with the agent's model; alert agents then notify. conflict when not active. */
  async score(
    t: TenantRef,
    agent: AgentRecord,
    rows: Record<string, JsonValue>[],
    opts: { keyColumn?: string; runId: string | null; at: Date },
  ): Promise<ScoreOutcome> {
    const predictions = await this.predict(t, agent, rows);
    // One statement (call_count = call_count + 1): concurrent runs never lose a count.
    const count = await this.deps.store.countCall(t.tenantId, agent.id);
    if (count === null) throw new AppError("conflict", `Agent '${agent.name}' is not active`);
    const out: ScoreOutcome = { predictions, call_count: count };
    if (agent.agent_type === "alert") Object.assign(out, await this.alert(t, agent, rows, predictions, opts));
    return out;
  }

  /** The model's predictions, checked to be one per row. */
  async predict(t: TenantRef, agent: AgentRecord, rows: Record<string, JsonValue>[]): Promise<AgentPrediction[]> {
    if (!agent.registry_id) throw new AppError("conflict", `Agent '${agent.name}' has no registry_id (deployed model)`);
    const { predictions } = await this.deps.predictor.predict(t, agent.registry_id, rows);
    if (predictions.length !== rows.length) {
      throw new AppError("internal", `The model answered ${predictions.length} predictions for ${rows.length} rows`);
    }
    return predictions;
  }

  private async alert(
    t: TenantRef,
    agent: AgentRecord,
    rows: Record<string, JsonValue>[],
    predictions: AgentPrediction[],
    opts: { keyColumn?: string; runId: string | null; at: Date },
  ): Promise<{ alerts: AlertOutcome[]; alerts_over_limit: number }> {
    const { tuning } = this.deps;
    const threshold = agent.alert_threshold ?? Number.POSITIVE_INFINITY;
    const window = windowStart(opts.at, tuning.alertWindowMs);
    const alerts: AlertOutcome[] = [];
    const seen = new Set<string>();
    let over = 0;
    for (const [i, p] of predictions.entries()) {
      const score = exceeds(p, threshold);
      if (score === null) continue;
      const key = entityKey(rows[i] as Record<string, JsonValue>, opts.keyColumn ?? agent.entity?.key_column);
      if (seen.has(key)) continue;
      seen.add(key);
      if (alerts.length >= tuning.maxAlertsPerRun) {
        over++;
        continue;
      }
      const id = crypto.randomUUID();
      // The unique (agent, entity, window) row is the deduplication, across instances too.
      const claimed = await this.deps.store.createAlert({
        id,
        agent_id: agent.id,
        tenant_id: t.tenantId,
        run_id: opts.runId,
        entity_key: key,
        window_start: window,
        score,
        channel: agent.alert_channel ?? "slack",
        status: "pending",
      });
      if (!claimed) {
        alerts.push({ entity_key: key, score, status: "duplicate", alert_id: null });
        continue;
      }
      await this.deps.queue.enqueue(
        AGENT_ALERT_QUEUE,
        AGENT_ALERT_JOB,
        { tenant_id: t.tenantId, slug: t.slug, alert_id: id, agent_id: agent.id, attempts: tuning.alertAttempts },
        { jobId: id, attempts: tuning.alertAttempts, backoffMs: tuning.alertBackoffMs },
      );
      alerts.push({ entity_key: key, score, status: "queued", alert_id: id });
    }
    return { alerts, alerts_over_limit: over };
  }
}
