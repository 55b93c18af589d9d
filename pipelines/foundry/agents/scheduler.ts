/**
 * Fires scheduled agents (score, batch, and alert agents with an entity) on their cron.
 * Every instance ticks; on each tick it reads the agents whose stored next fire time has
 * come and claims each fire with one conditional update (next_fire_at moves from the due
 * time to the cron's next only where it still equals the due time), so with any number of
 * instances on one control plane each fire is claimed once. The claimed fire becomes a run
 * (unique per agent and fire time) queued on the durable job queue under the run's id.
 *
 * Restarts: the next fire time is stored, so a restarted instance picks up where the
 * cluster left off; fires missed while no instance ran collapse into one (the next after
 * now is computed from the cron), never a burst. An agent with a run still queued or
 * running records the fire as skipped instead of queueing another (at most one pending run
 * per agent).
 */
import { nextFire } from "../../../domain/foundry/agents/model.ts";
import type { AgentStore } from "../../../domain/foundry/agents/ports.ts";
import type { FoundryAgents } from "../../../domain/foundry/agents/service.ts";

export interface SchedulerLogger {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
}

export interface AgentSchedulerOptions {
  /** How often each instance looks for due agents, ms. */
  tickMs: number;
  /** Fires claimed per tick at most (the rest wait for the next tick). */
  batch: number;
  logger: SchedulerLogger;
  now?: () => Date;
  /** The tenant's slug for the queued run; null when the tenant is gone or not active (no run then). */
  slugOf: (tenantId: string) => Promise<string | null>;
}

export class AgentScheduler {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private ticking: Promise<unknown> | null = null;
  private readonly now: () => Date;
  /** Fires this instance claimed (tests count them across instances). */
  claimed = 0;

  constructor(
    private readonly store: AgentStore,
    private readonly agents: FoundryAgents,
    private readonly opts: AgentSchedulerOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  start(): void {
    if (this.closed || this.timer || this.ticking) return;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ticking = this.tick().then(() => {
        this.ticking = null;
        this.schedule(this.opts.tickMs);
      });
    }, ms);
  }

  /** One pass: claim and queue every due fire (bounded by `batch`). */
  async tick(): Promise<number> {
    let n = 0;
    try {
      const now = this.now();
      const due = await this.store.dueAgents(now.toISOString(), this.opts.batch);
      for (const a of due) {
        if (this.closed) break;
        const at = a.next_fire_at as string;
        let next: string | null = null;
        try {
          // The cron's next after both the due time and now: missed fires collapse into this one.
          const after = new Date(Math.max(now.getTime(), Date.parse(at)));
          next = a.schedule_cron ? (nextFire(a.schedule_cron, after)?.toISOString() ?? null) : null;
        } catch (err) {
          this.opts.logger.warn({ agent_id: a.id, error: (err as Error).message }, "agent cron no longer parses");
        }
        if (!(await this.store.claimFire(a.id, at, next))) continue;
        n++;
        this.claimed++;
        await this.fire(a.tenant_id, a.id, at);
      }
    } catch (err) {
      if (!this.closed) this.opts.logger.warn({ error: (err as Error).message }, "agent scheduler tick failed");
    }
    return n;
  }

  private async fire(tenantId: string, agentId: string, fireAt: string): Promise<void> {
    const slug = await this.opts.slugOf(tenantId);
    if (slug === null) return; // a deactivated tenant's agents do not run; the fire is spent
    const t = { tenantId, slug };
    const agent = await this.store.getAgent(tenantId, agentId);
    if (agent?.status !== "active") return;
    if ((await this.store.unfinishedRuns(agentId)) > 0) {
      await this.store.createRun({
        id: crypto.randomUUID(),
        agent_id: agentId,
        tenant_id: tenantId,
        trigger: "schedule",
        fire_at: fireAt,
        status: "skipped",
        progress: null,
        result: null,
        error: "the previous run is still queued or running",
      });
      return;
    }
    const runId = await this.agents.queueRun(t, agent, "schedule", fireAt);
    this.opts.logger.info({ agent_id: agentId, run_id: runId, fire_at: fireAt }, "agent fire queued");
  }

  /** Stops ticking; waits for a tick in progress. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
  }
}
