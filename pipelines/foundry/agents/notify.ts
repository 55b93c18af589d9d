/**
 * Delivers one alert notification (queue foundry-agent-alerts, job agents.notify): a
 * Slack-compatible JSON POST to the agent's webhook, or an e-mail through the SMTP adapter.
 * A failed attempt is recorded and thrown, so the queue retries it after its exponential
 * backoff; the last attempt's failure marks the notification failed. A paused or deleted
 * agent's pending notification is suppressed, never sent.
 */
import { emailMessage, slackPayload } from "../../../domain/foundry/agents/alerts.ts";
import type { AgentNotifier, AgentStore } from "../../../domain/foundry/agents/ports.ts";
import type { JobHandler, JsonValue } from "../../../domain/ports.ts";

export interface NotifyDeps {
  store: AgentStore;
  notifier: AgentNotifier;
}

interface NotifyJob {
  tenant_id: string;
  alert_id: string;
  agent_id: string;
  attempts: number;
}

export function makeNotifyHandler(deps: NotifyDeps): JobHandler {
  return async (job): Promise<JsonValue> => {
    const d = job.data as unknown as NotifyJob;
    const alert = await deps.store.getAlert(d.tenant_id, d.alert_id);
    if (alert?.status !== "pending") return { skipped: "not pending" };
    const agent = await deps.store.getAgent(d.tenant_id, d.agent_id);
    if (agent?.status !== "active" || !agent.alert_webhook) {
      await deps.store.updateAlert(d.tenant_id, alert.id, {
        status: "suppressed",
        last_error: `the agent is ${agent?.status ?? "gone"}`,
      });
      return { suppressed: true };
    }
    const facts = { agent, entity_key: alert.entity_key, score: alert.score, window_start: alert.window_start };
    try {
      if (agent.alert_channel === "email") {
        const m = emailMessage(facts);
        await deps.notifier.email(agent.alert_webhook, m.subject, m.text);
      } else {
        await deps.notifier.webhook(agent.alert_webhook, slackPayload(facts));
      }
    } catch (err) {
      const last = job.attempt >= d.attempts;
      await deps.store.updateAlert(d.tenant_id, alert.id, {
        attempts: job.attempt,
        last_error: (err as Error).message.slice(0, 500),
        ...(last ? { status: "failed" as const } : {}),
      });
      if (last) return { failed: (err as Error).message };
      throw err;
    }
    await deps.store.updateAlert(d.tenant_id, alert.id, {
      status: "delivered",
      attempts: job.attempt,
      delivered_at: new Date().toISOString(),
    });
    return { delivered: true, attempts: job.attempt };
  };
}
