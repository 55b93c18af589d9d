/**
 * The agent scheduler over the real SQLite control plane and embedded job queue, on a
 * clock the test moves: two schedulers ticking the same agents claim each fire once
 * between them; every claimed fire is one queued run and one queued job; fires missed
 * while nothing ran collapse into one; a paused agent is never claimed; a scheduler built
 * afresh on the same database carries on from the stored next fire.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlAgentStore } from "../../../adapters/controlplane/foundry-agent-store.ts";
import { FOUNDRY_MIGRATIONS } from "../../../adapters/controlplane/foundry-migrations.ts";
import { SqlControlPlaneStore } from "../../../adapters/controlplane/store.ts";
import { EmbeddedJobQueue } from "../../../adapters/queue/embedded.ts";
import { JOB_QUEUE_MIGRATIONS } from "../../../adapters/queue/embedded-store.ts";
import { SqliteClient } from "../../../adapters/sql/index.ts";
import { AgentExecutor } from "../../../domain/foundry/agents/execute.ts";
import { AGENT_RUN_QUEUE } from "../../../domain/foundry/agents/ports.ts";
import { FoundryAgents } from "../../../domain/foundry/agents/service.ts";
import { AgentScheduler } from "./scheduler.ts";

const quiet = { info: () => undefined, warn: () => undefined };

describe("agent scheduler", () => {
  let dir: string;
  let sql: SqliteClient;
  let store: SqlAgentStore;
  let queue: EmbeddedJobQueue;
  let clock = Date.parse("2026-11-25T20:00:00.000Z");
  const now = () => new Date(clock);
  const t = { tenantId: "tenant-s", slug: "tenant-s" };
  let agents: FoundryAgents;

  const scheduler = () =>
    new AgentScheduler(store, agents, { tickMs: 1000, batch: 100, logger: quiet, now, slugOf: async () => t.slug });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cairn-agent-sched-"));
    sql = new SqliteClient(join(dir, "cp.sqlite"));
    const cp = new SqlControlPlaneStore(sql);
    await cp.migrate([...JOB_QUEUE_MIGRATIONS, ...FOUNDRY_MIGRATIONS]);
    await cp.createTenant({ tenant_id: t.tenantId, slug: t.slug, display_name: "s", tier: "pilot", region: "eu" });
    store = new SqlAgentStore(sql);
    queue = new EmbeddedJobQueue(sql, { leaseMs: 30_000 });
    const executor = new AgentExecutor({
      store,
      queue,
      predictor: { predict: async (_t, _r, rows) => ({ predictions: rows.map(() => ({ score: 0 })) }) },
      tuning: { alertWindowMs: 3_600_000, alertAttempts: 1, alertBackoffMs: 10, maxAlertsPerRun: 10 },
    });
    agents = new FoundryAgents({ store, executor, queue, now });
  });
  afterAll(async () => {
    await queue.close();
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Marks every queued run finished, as the run worker would. */
  const finishRuns = async (id: string) => {
    for (const r of await store.listRuns(t.tenantId, id, 100)) {
      if (r.status === "queued") await store.updateRun(t.tenantId, r.id, { status: "succeeded" });
    }
  };

  test("two schedulers claim each fire once; missed fires collapse; restarts carry on; paused never fires", async () => {
    const { id } = await agents.create(t, {
      name: "every minute",
      agent_type: "score",
      registry_id: "r",
      schedule_cron: "* * * * *",
      entity: { rows: [{ x: 1 }] },
    });
    expect((await store.getAgent(t.tenantId, id))?.next_fire_at).toBe("2026-11-25T20:01:00.000Z");
    const [s1, s2] = [scheduler(), scheduler()];

    // Nothing is due before the first fire.
    expect((await Promise.all([s1.tick(), s2.tick()])).reduce((x, y) => x + y)).toBe(0);
    // Five minutes, both schedulers ticking concurrently at each.
    for (let m = 1; m <= 5; m++) {
      clock = Date.parse(`2026-11-25T20:0${m}:00.200Z`);
      const claimed = await Promise.all([s1.tick(), s2.tick(), s1.tick()]);
      expect(claimed.reduce((x, y) => x + y)).toBe(1);
      await finishRuns(id);
    }
    expect(s1.claimed + s2.claimed).toBe(5);
    const runs = await store.listRuns(t.tenantId, id, 100);
    expect(runs.map((r) => r.fire_at).sort()).toEqual([1, 2, 3, 4, 5].map((m) => `2026-11-25T20:0${m}:00.000Z`));
    for (const r of runs) expect((await queue.getJob(AGENT_RUN_QUEUE, r.id))?.status).toBe("waiting");

    // Down for an hour: a fresh scheduler fires the stored due time once, then the cron's next after now.
    clock = Date.parse("2026-11-25T21:06:30.000Z");
    const s3 = scheduler();
    expect(await s3.tick()).toBe(1);
    expect(await s3.tick()).toBe(0);
    expect(await store.getAgent(t.tenantId, id)).toMatchObject({
      last_fire_at: "2026-11-25T20:06:00.000Z",
      next_fire_at: "2026-11-25T21:07:00.000Z",
    });

    // A run still queued: the next fire is recorded as skipped, nothing more is queued.
    clock = Date.parse("2026-11-25T21:07:00.100Z");
    expect(await s3.tick()).toBe(1);
    const skipped = (await store.listRuns(t.tenantId, id, 100)).find((r) => r.fire_at === "2026-11-25T21:07:00.000Z");
    expect(skipped).toMatchObject({ status: "skipped", error: "the previous run is still queued or running" });
    await finishRuns(id);

    // Paused: no fire is claimed however long it stays paused; resumed: the next minute after now.
    await agents.pause(t, id);
    clock = Date.parse("2026-11-25T21:30:00.000Z");
    expect(await Promise.all([s1.tick(), s3.tick()])).toEqual([0, 0]);
    const resumed = await agents.resume(t, id);
    expect(resumed.next_fire_at).toBe("2026-11-25T21:31:00.000Z");
    await Promise.all([s1.close(), s2.close(), s3.close()]);
  });
});
