/**
 * Foundry agents (domain/foundry/agents/): the control-plane store, the executor, the
 * service, the run and notification workers, the cron scheduler (pipelines/foundry/agents/),
 * and the two outgoing channels: a Slack-compatible webhook POST (bounded body, deadline, no
 * redirects) and e-mail through the installation's SMTP mailer.
 */
import { SqlAgentStore } from "../adapters/controlplane/foundry-agent-store.ts";
import { AppError } from "../domain/errors.ts";
import type { Mailer } from "../domain/financials/ports.ts";
import { AgentExecutor } from "../domain/foundry/agents/execute.ts";
import {
  AGENT_ALERT_QUEUE,
  AGENT_RUN_QUEUE,
  type AgentNotifier,
  type AgentPredictor,
} from "../domain/foundry/agents/ports.ts";
import { attachAgents } from "../domain/foundry/agents/registry.ts";
import { FoundryAgents } from "../domain/foundry/agents/service.ts";
import type { FoundryService } from "../domain/foundry/service.ts";
import type { JobWorker } from "../domain/ports.ts";
import { makeNotifyHandler } from "../pipelines/foundry/agents/notify.ts";
import { makeAgentRunHandler } from "../pipelines/foundry/agents/run.ts";
import { AgentScheduler } from "../pipelines/foundry/agents/scheduler.ts";
import type { FoundryWiring } from "./foundry-wiring.ts";

/** Largest webhook body sent, bytes (a Slack message is far smaller). */
const MAX_WEBHOOK_BYTES = 32 * 1024;
/** Notifications one run may queue. */
const MAX_ALERTS_PER_RUN = 50;
/** Fires one scheduler tick claims at most. */
const FIRES_PER_TICK = 100;

/**
 * The predictor until the serving area's FoundryServing lands: no model is deployed, so
 * every prediction is refused (409) and an agent run records that failure.
 */
export const undeployedPredictor: AgentPredictor = {
  predict: async () => {
    throw new AppError("conflict", "model not deployed");
  },
};

/**
 * The serving area's FoundryServing (FoundryService.serving) as the agents' predictor, read
 * structurally: its predict(t, modelIdOrRegistryId, rows) answers {predictions} whose score,
 * label and value are what agents read. A FoundryService without one: undeployedPredictor.
 */
export function predictorOf(foundry: object): AgentPredictor {
  const serving = (foundry as { serving?: unknown }).serving as Partial<AgentPredictor> | null | undefined;
  if (!serving || typeof serving.predict !== "function") return undeployedPredictor;
  return { predict: (t, registryId, rows) => (serving as AgentPredictor).predict(t, registryId, rows) };
}

export function webhookNotifier(opts: { timeoutMs: number; mailer: Mailer | null }): AgentNotifier {
  return {
    webhook: async (url, body) => {
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      if (bytes.length > MAX_WEBHOOK_BYTES) throw new Error(`webhook body of ${bytes.length} bytes is too large`);
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: bytes,
        redirect: "manual",
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      // The answer's body is never needed: drop it so the connection is freed at once.
      await res.body?.cancel().catch(() => undefined);
      if (res.status < 200 || res.status > 299) throw new Error(`the webhook answered ${res.status}`);
      return { status: res.status };
    },
    email: async (to, subject, text) => {
      if (!opts.mailer) throw new AppError("unavailable", "No SMTP server is configured (CAIRN_SMTP_URL)");
      const sent = await opts.mailer.send({ to: [to], subject, text, attachments: [] });
      if (sent.accepted.length === 0) throw new Error(`the SMTP server refused ${to}`);
      return { messageId: sent.messageId };
    },
  };
}

export interface AgentWiring {
  mailer: Mailer | null;
  /** The deployed models' predictions; default: the Foundry service's serving area (predictorOf). */
  predictor?: AgentPredictor;
  /** The FoundryService: its `serving` predicts, its `agents` field is set here (the routes read it). */
  foundry: FoundryService;
}

export function openFoundryAgents(
  d: Pick<FoundryWiring, "config" | "store" | "queue" | "lakehouse" | "logger"> & AgentWiring,
): {
  agents: FoundryAgents;
  workers: JobWorker[];
  scheduler: AgentScheduler | null;
} {
  const cfg = d.config.foundry.agents;
  const store = new SqlAgentStore(d.store.sql);
  const executor = new AgentExecutor({
    store,
    predictor: d.predictor ?? predictorOf(d.foundry),
    queue: d.queue,
    tuning: {
      alertWindowMs: cfg.alertWindowMs,
      alertAttempts: cfg.alertAttempts,
      alertBackoffMs: cfg.alertBackoffMs,
      maxAlertsPerRun: MAX_ALERTS_PER_RUN,
    },
  });
  const agents = new FoundryAgents({ store, executor, queue: d.queue });
  attachAgents(d.foundry, agents);
  const runs = d.queue.work(
    AGENT_RUN_QUEUE,
    makeAgentRunHandler({ store, executor, lakehouse: d.lakehouse, batchRows: cfg.batchRows }),
    { concurrency: 2 },
  );
  const notify = d.queue.work(
    AGENT_ALERT_QUEUE,
    makeNotifyHandler({ store, notifier: webhookNotifier({ timeoutMs: cfg.webhookTimeoutMs, mailer: d.mailer }) }),
    { concurrency: 4 },
  );
  const scheduler =
    cfg.tickMs > 0
      ? new AgentScheduler(store, agents, {
          tickMs: cfg.tickMs,
          batch: FIRES_PER_TICK,
          logger: d.logger,
          slugOf: async (tenantId) => {
            const tenant = await d.store.getTenant(tenantId);
            return tenant?.is_active && tenant.provisioning_state === "active" ? tenant.slug : null;
          },
        })
      : null;
  // The scheduler closes with the workers (before the queue), so no fire is queued after it.
  const workers: JobWorker[] = [runs, notify];
  if (scheduler) workers.unshift(scheduler);
  return { agents, workers, scheduler };
}
