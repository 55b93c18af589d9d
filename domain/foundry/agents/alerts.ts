/**
 * Alert rules (spec 2.7, 6.2; docs/foundry-agents.md): when a prediction exceeds the
 * threshold, which entity it is about, the window that deduplicates notifications, and the
 * payloads sent (Slack-compatible JSON, or a plain-text e-mail).
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "../../ports.ts";
import type { AgentRecord } from "./model.ts";
import type { AgentPrediction } from "./ports.ts";

/** The number an alert compares: the score, or the value of a regression model. */
export function alertScore(p: AgentPrediction): number | null {
  if (typeof p.score === "number" && Number.isFinite(p.score)) return p.score;
  if (typeof p.value === "number" && Number.isFinite(p.value)) return p.value;
  return null;
}

/** "Exceeds" is strict: a score equal to the threshold does not fire. */
export function exceeds(p: AgentPrediction, threshold: number): number | null {
  const s = alertScore(p);
  return s !== null && s > threshold ? s : null;
}

/**
 * The entity a row is about: its key column's value when one is named and present, else a
 * digest of the row's canonical JSON (the same row is the same entity).
 */
export function entityKey(row: Record<string, JsonValue>, keyColumn: string | undefined): string {
  const v = keyColumn ? row[keyColumn] : undefined;
  // NUL cannot be stored in Postgres text; the key is for people and deduplication only.
  if (keyColumn && v !== undefined && v !== null)
    return `${keyColumn}=${String(v)}`.replaceAll("\u0000", "\uFFFD").slice(0, 200);
  const canonical = JSON.stringify(
    Object.keys(row)
      .sort()
      .map((k) => [k, row[k]]),
  );
  return `row:${createHash("sha256").update(canonical).digest("hex").slice(0, 16)}`;
}

/** Start of the alert window holding `at`: windows are fixed, aligned to the epoch. */
export function windowStart(at: Date, windowMs: number): string {
  return new Date(Math.floor(at.getTime() / windowMs) * windowMs).toISOString();
}

export interface AlertFacts {
  agent: Pick<AgentRecord, "id" | "name" | "registry_id" | "alert_threshold">;
  entity_key: string;
  score: number;
  window_start: string;
}

export function alertText(f: AlertFacts): string {
  return `Cairn alert: agent "${f.agent.name}" scored ${f.entity_key} at ${round(f.score)}, above its threshold ${f.agent.alert_threshold}`;
}

/** The Slack-compatible body: `text` for every receiver, `blocks` for Slack's layout. */
export function slackPayload(f: AlertFacts): { text: string; blocks: JsonValue[] } {
  const text = alertText(f);
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: `agent ${f.agent.id} · model ${f.agent.registry_id ?? "none"} · window from ${f.window_start}`,
          },
        ],
      },
    ],
  };
}

export function emailMessage(f: AlertFacts): { subject: string; text: string } {
  return {
    subject: `Cairn alert: ${f.agent.name}`.slice(0, 200),
    text: [
      alertText(f),
      "",
      `Agent: ${f.agent.id}`,
      `Model: ${f.agent.registry_id ?? "none"}`,
      `Entity: ${f.entity_key}`,
      `Score: ${f.score}`,
      `Alert window from: ${f.window_start}`,
    ].join("\n"),
  };
}

function round(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(4);
}
