/**
 * What Foundry agents need from outside the domain: the control-plane store (agents, their
 * runs and alert notifications), a predictor over deployed models, the notification
 * channels, the tenant's lakehouse (batch) and the job queue the runs go through.
 */
import type { LakehouseColumn, LakehouseRows, WriteRequest, WriteResult } from "../../lakehouse/ports.ts";
import type { JobQueue, JsonValue } from "../../ports.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import type { AgentRecord, AgentStatus } from "./model.ts";

/** One prediction of a deployed model (the serving area's predict, narrowed to what agents read). */
export interface AgentPrediction {
  score?: number;
  label?: string | number | boolean | null;
  value?: number;
}

/**
 * Predictions of the deployed model `registryId` (the deploy operation's registry id) for
 * `rows`, in order. conflict (409) while the model is not deployed or not yet active.
 */
export interface AgentPredictor {
  predict(
    t: TenantRef,
    registryId: string,
    rows: Record<string, JsonValue>[],
  ): Promise<{ predictions: AgentPrediction[] }>;
}

/** Outgoing notifications; each throws when the receiver refuses or cannot be reached. */
export interface AgentNotifier {
  /** POSTs the Slack-compatible JSON body to the webhook; throws on a non-2xx answer or a timeout. */
  webhook(url: string, body: { text: string; blocks?: JsonValue[] }): Promise<{ status: number }>;
  /** One e-mail through the installation's SMTP server; unavailable when none is configured. */
  email(to: string, subject: string, text: string): Promise<{ messageId: string }>;
}

/** The tenant's lakehouse as a batch agent reads and writes it (the lab's gateway). */
export interface AgentLakehouse {
  tableSchema(namespace: string, table: string): Promise<LakehouseColumn[]>;
  sql(namespace: string, statement: string): Promise<LakehouseRows>;
  write(namespace: string, table: string, req: WriteRequest): Promise<WriteResult>;
}

export type NewAgent = Omit<AgentRecord, "status" | "call_count" | "created_at" | "updated_at" | "last_fire_at">;

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "skipped"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** One execution of an agent: a scheduled fire (unique per agent and fire time) or a manual one. */
export interface AgentRun {
  id: string;
  agent_id: string;
  tenant_id: string;
  trigger: "schedule" | "manual";
  /** The cron fire time this run claimed; null for manual runs. */
  fire_at: string | null;
  status: RunStatus;
  progress: JsonValue | null;
  result: JsonValue | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export type RunPatch = Partial<Pick<AgentRun, "status" | "progress" | "result" | "error" | "finished_at">>;

export const ALERT_STATUSES = ["pending", "delivered", "failed", "suppressed"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** One notification: unique per agent, entity and alert window (the deduplication key). */
export interface AgentAlert {
  id: string;
  agent_id: string;
  tenant_id: string;
  run_id: string | null;
  entity_key: string;
  window_start: string;
  score: number;
  channel: string;
  status: AlertStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export type AlertPatch = Partial<Pick<AgentAlert, "status" | "attempts" | "last_error" | "delivered_at">>;

/** Agents in the control plane (SQLite and Postgres; test/contracts/foundry-agent-store.test.ts). */
export interface AgentStore {
  createAgent(a: NewAgent): Promise<AgentRecord>;
  /** Any status, deleted included (the service answers 404 for deleted ones). */
  getAgent(tenantId: string, id: string): Promise<AgentRecord | null>;
  /** The tenant's agents but deleted ones, oldest first. */
  listAgents(tenantId: string): Promise<AgentRecord[]>;
  /** Sets the status while it is one of `from` (and the next fire time); null when it was not. */
  transition(
    tenantId: string,
    id: string,
    from: AgentStatus[],
    to: AgentStatus,
    nextFireAt: string | null,
  ): Promise<AgentRecord | null>;
  /** call_count + 1 in one statement while active; the new count, or null when not active. */
  countCall(tenantId: string, id: string): Promise<number | null>;
  /** Active agents of every tenant whose next fire time is at or before `now`, soonest first. */
  dueAgents(now: string, limit: number): Promise<AgentRecord[]>;
  /**
   * Moves an active agent's fire time from `due` to `next` in one conditional update: of all
   * instances that try, exactly one gets true (the claim of that fire).
   */
  claimFire(id: string, due: string, next: string | null): Promise<boolean>;

  /** Inserts the run; false when the agent already has a run for that fire time. */
  createRun(r: Omit<AgentRun, "created_at" | "finished_at">): Promise<boolean>;
  getRun(tenantId: string, id: string): Promise<AgentRun | null>;
  updateRun(tenantId: string, id: string, patch: RunPatch): Promise<void>;
  /** Newest first. */
  listRuns(tenantId: string, agentId: string, limit: number): Promise<AgentRun[]>;
  /** Runs of the agent still queued or running. */
  unfinishedRuns(agentId: string): Promise<number>;

  /** Inserts the notification; false when one exists for its agent, entity and window. */
  createAlert(a: Omit<AgentAlert, "created_at" | "delivered_at" | "attempts" | "last_error">): Promise<boolean>;
  getAlert(tenantId: string, id: string): Promise<AgentAlert | null>;
  updateAlert(tenantId: string, id: string, patch: AlertPatch): Promise<void>;
  /** Newest first. */
  listAlerts(tenantId: string, agentId: string, limit: number): Promise<AgentAlert[]>;
}

/** Where runs and notifications are queued (pipelines/foundry/agents/ consumes them). */
export type AgentQueue = Pick<JobQueue, "enqueue">;
export const AGENT_RUN_QUEUE = "foundry-agents";
export const AGENT_RUN_JOB = "agents.run";
export const AGENT_ALERT_QUEUE = "foundry-agent-alerts";
export const AGENT_ALERT_JOB = "agents.notify";
