/**
 * Foundry agents (spec 2.7, 3.3, 6.2): the stored record, its public view and the rules a
 * new agent must satisfy. The cross-field rules live here (not in the route's schema) so a
 * 422 names every field at once and the dashboard and MCP get the same answers.
 */
import { Cron } from "croner";
import type { ValidationIssue } from "../../errors.ts";
import type { JsonValue } from "../../ports.ts";

export const AGENT_TYPES = ["predict", "score", "alert", "batch"] as const;
export type AgentType = (typeof AGENT_TYPES)[number];
export const AGENT_STATUSES = ["active", "paused", "deleted"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];
export const ALERT_CHANNELS = ["slack", "email"] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

/** Rows an entity may carry inline (beyond the spec: `entity.rows`), and one run's on-demand rows. */
export const MAX_ENTITY_ROWS = 100;
export const MAX_RUN_ROWS = 1000;

/**
 * What a score, alert or batch agent works on (beyond the spec, docs/foundry-agents.md):
 * a lakehouse table of the tenant (batch: every row; score/alert: the rows whose
 * `key_column` equals `key`), or rows stored with the agent. `output_table` names a batch
 * agent's result table (default `<table>_scores`).
 */
export interface AgentEntity {
  name?: string;
  table?: string;
  key_column?: string;
  key?: string | number;
  rows?: Record<string, JsonValue>[];
  output_table?: string;
}

export interface AgentRecord {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  registry_id: string | null;
  agent_type: AgentType;
  alert_threshold: number | null;
  alert_channel: AlertChannel | null;
  alert_webhook: string | null;
  schedule_cron: string | null;
  batch_dag_id: string | null;
  entity: AgentEntity | null;
  status: AgentStatus;
  call_count: number;
  created_at: string;
  updated_at: string;
  /** The fire time the scheduler claims next (null: never scheduled, or paused/deleted). */
  next_fire_at: string | null;
  last_fire_at: string | null;
}

export interface AgentRequest {
  name: string;
  description?: string | null;
  registry_id?: string | null;
  agent_type?: AgentType;
  alert_threshold?: number | null;
  alert_channel?: AlertChannel | null;
  alert_webhook?: string | null;
  schedule_cron?: string | null;
  batch_dag_id?: string | null;
  entity?: AgentEntity | null;
}

/** Types the scheduler fires (alert only when it has a cron and an entity). */
export function isScheduled(a: Pick<AgentRecord, "agent_type" | "schedule_cron" | "entity">): boolean {
  if (!a.schedule_cron) return false;
  if (a.agent_type === "score" || a.agent_type === "batch") return true;
  return a.agent_type === "alert" && a.entity !== null;
}

/** The cron's next fire strictly after `after` (croner; 5 fields, or 6 with seconds first). */
export function nextFire(cron: string, after: Date): Date | null {
  return new Cron(cron, { paused: true }).nextRun(after);
}

/** The croner error text of an invalid expression, or null when it parses and ever fires. */
export function cronError(cron: string): string | null {
  try {
    const next = nextFire(cron, new Date());
    return next ? null : "the expression never fires";
  } catch (err) {
    return (err as Error).message;
  }
}

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;
const TABLE = /^[a-z_][a-z0-9_]{0,62}$/;
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const KEY = /^[^'"\\]{0,200}$/;

function issue(field: string, msg: string, input: unknown, type = "value_error"): ValidationIssue {
  return { loc: ["body", field], msg, type, input, ctx: {} };
}

/** Every cross-field rule of a new agent; an empty list means it may be stored. */
export function agentIssues(req: AgentRequest): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const type = req.agent_type ?? "predict";
  if (!/\S/.test(req.name)) out.push(issue("name", "name must not be blank", req.name));
  // Postgres text cannot hold NUL; refuse it here rather than fail at the insert.
  const texts = { ...req, entity_name: req.entity?.name };
  for (const field of [
    "name",
    "description",
    "registry_id",
    "alert_webhook",
    "schedule_cron",
    "batch_dag_id",
  ] as const) {
    const v = texts[field];
    if (typeof v === "string" && v.includes("\u0000")) out.push(issue(field, "must not contain NUL characters", v));
  }
  if (texts.entity_name?.includes("\u0000"))
    out.push(issue("entity", "entity.name must not contain NUL", texts.entity_name));
  if (req.schedule_cron) {
    const err = cronError(req.schedule_cron);
    if (err) out.push(issue("schedule_cron", `invalid cron expression: ${err}`, req.schedule_cron, "cron_error"));
  } else if (type === "score" || type === "batch") {
    out.push(issue("schedule_cron", `schedule_cron is required for ${type} agents`, null, "missing"));
  }
  if (type === "alert") {
    if (req.alert_threshold == null)
      out.push(issue("alert_threshold", "alert agents need alert_threshold", null, "missing"));
    if (!req.alert_channel) out.push(issue("alert_channel", "alert agents need alert_channel", null, "missing"));
    if (!req.alert_webhook) out.push(issue("alert_webhook", "alert agents need alert_webhook", null, "missing"));
    else if (req.alert_channel === "slack" && !isHttpUrl(req.alert_webhook)) {
      out.push(issue("alert_webhook", "a slack alert_webhook must be an http(s) URL", req.alert_webhook));
    } else if (req.alert_channel === "email" && !EMAIL.test(req.alert_webhook)) {
      out.push(issue("alert_webhook", "an email alert_webhook must be an e-mail address", req.alert_webhook));
    }
    if (req.schedule_cron && !req.entity) {
      out.push(issue("entity", "a scheduled alert agent needs the entity it scores", null, "missing"));
    }
  }
  out.push(...entityIssues(type, req.entity ?? null));
  return out;
}

function entityIssues(type: AgentType, e: AgentEntity | null): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  if (type === "score" && !e) out.push(issue("entity", "score agents need the entity they re-score", null, "missing"));
  if (type === "batch" && !e?.table) {
    out.push(issue("entity", "batch agents need entity.table, the table they score", e, "missing"));
  }
  if (!e) return out;
  if (e.table !== undefined && !TABLE.test(e.table))
    out.push(issue("entity", "entity.table is not a table name", e.table));
  if (e.output_table !== undefined && !TABLE.test(e.output_table)) {
    out.push(issue("entity", "entity.output_table is not a table name", e.output_table));
  }
  if (e.key_column !== undefined && !COLUMN.test(e.key_column)) {
    out.push(issue("entity", "entity.key_column is not a column name", e.key_column));
  }
  if (typeof e.key === "string" && !KEY.test(e.key)) {
    out.push(issue("entity", "entity.key holds at most 200 characters, no quotes or backslashes", e.key));
  }
  if (typeof e.key === "number" && !Number.isFinite(e.key))
    out.push(issue("entity", "entity.key is not finite", e.key));
  if (type === "batch") return out;
  const byKey = e.table !== undefined && e.key_column !== undefined && e.key !== undefined;
  if (!byKey && !e.rows?.length) {
    out.push(issue("entity", "an entity is {table, key_column, key} or {rows: [...]} (1 to 100 rows)", e));
  }
  if (e.rows && e.rows.length > MAX_ENTITY_ROWS) {
    out.push(issue("entity", `entity.rows holds at most ${MAX_ENTITY_ROWS} rows`, e.rows.length));
  }
  return out;
}

export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * The record as callers see it: the 2.7 fields plus what this service adds (registry_id,
 * batch_dag_id, entity, fire times). alert_webhook is never returned: a Slack webhook URL
 * is a credential.
 */
export function agentView(a: AgentRecord) {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    agent_type: a.agent_type,
    alert_threshold: a.alert_threshold,
    alert_channel: a.alert_channel,
    schedule_cron: a.schedule_cron,
    status: a.status,
    call_count: a.call_count,
    created_at: a.created_at,
    updated_at: a.updated_at,
    registry_id: a.registry_id,
    batch_dag_id: a.batch_dag_id,
    entity: a.entity,
    last_fire_at: a.last_fire_at,
    next_fire_at: a.next_fire_at,
  };
}
