/**
 * The agent store (adapters/controlplane/foundry-agent-store.ts) on SQLite and Postgres:
 * records round-trip, reads are scoped to the tenant and deleted agents leave the listing;
 * status changes are conditional; call_count increments atomically under concurrency; a
 * fire is claimed by exactly one of many concurrent claimers; runs are unique per agent and
 * fire time, notifications per agent, entity and window.
 */
import { beforeAll, expect, test } from "bun:test";
import { SqlAgentStore } from "../../adapters/controlplane/foundry-agent-store.ts";
import type { NewAgent } from "../../domain/foundry/agents/ports.ts";
import { forEachControlPlane } from "./foundry-control-plane.ts";

function newAgent(tenant: string, name: string, over: Partial<NewAgent> = {}): NewAgent {
  return {
    id: crypto.randomUUID(),
    tenant_id: tenant,
    name,
    description: null,
    registry_id: "reg-1",
    agent_type: "alert",
    alert_threshold: 0.75,
    alert_channel: "slack",
    alert_webhook: "https://hooks.example.test/x",
    schedule_cron: "*/5 * * * *",
    batch_dag_id: null,
    entity: { name: "ACME", rows: [{ x: 1 }] },
    next_fire_at: "2026-11-25T20:05:00.000Z",
    ...over,
  };
}

forEachControlPlane("foundry agent store", ["tenant-a", "tenant-b"], (db) => {
  let store: SqlAgentStore;
  beforeAll(() => {
    store = new SqlAgentStore(db());
  });

  test("a record round-trips; reads are the tenant's; deleted agents leave the listing", async () => {
    const a = newAgent("tenant-a", "watch");
    const created = await store.createAgent(a);
    expect(created).toMatchObject({
      id: a.id,
      status: "active",
      call_count: 0,
      alert_threshold: 0.75,
      entity: { name: "ACME", rows: [{ x: 1 }] },
      next_fire_at: "2026-11-25T20:05:00.000Z",
      last_fire_at: null,
    });
    expect(await store.getAgent("tenant-b", a.id)).toBeNull();
    expect((await store.listAgents("tenant-a")).map((x) => x.id)).toContain(a.id);
    expect(await store.transition("tenant-a", a.id, ["active"], "paused", null)).toMatchObject({
      status: "paused",
      next_fire_at: null,
    });
    // Not in a `from` state: nothing changes.
    expect(await store.transition("tenant-a", a.id, ["active"], "deleted", null)).toBeNull();
    expect(await store.countCall("tenant-a", a.id)).toBeNull();
    await store.transition("tenant-a", a.id, ["paused"], "deleted", null);
    expect((await store.listAgents("tenant-a")).map((x) => x.id)).not.toContain(a.id);
    expect((await store.getAgent("tenant-a", a.id))?.status).toBe("deleted");
  });

  test("call_count: concurrent increments are all counted", async () => {
    const a = await store.createAgent(newAgent("tenant-a", "counter", { next_fire_at: null }));
    const counts = await Promise.all(Array.from({ length: 20 }, () => store.countCall("tenant-a", a.id)));
    expect(new Set(counts).size).toBe(20);
    expect((await store.getAgent("tenant-a", a.id))?.call_count).toBe(20);
  });

  test("a due fire is claimed by exactly one of many claimers", async () => {
    const due = "2020-01-01T00:00:00.000Z";
    const a = await store.createAgent(newAgent("tenant-b", "claimed", { next_fire_at: due }));
    expect((await store.dueAgents("2020-01-01T00:00:00.000Z", 100)).map((x) => x.id)).toContain(a.id);
    expect((await store.dueAgents("2019-12-31T23:59:59.000Z", 100)).map((x) => x.id)).not.toContain(a.id);
    const wins = await Promise.all(
      Array.from({ length: 10 }, () => store.claimFire(a.id, due, "2020-01-01T00:05:00.000Z")),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await store.getAgent("tenant-b", a.id)).toMatchObject({
      last_fire_at: due,
      next_fire_at: "2020-01-01T00:05:00.000Z",
    });
  });

  test("runs: one per agent and fire time; manual runs any number; unfinished counted", async () => {
    const a = await store.createAgent(newAgent("tenant-a", "runs"));
    const run = (id: string, fire_at: string | null) => ({
      id,
      agent_id: a.id,
      tenant_id: "tenant-a",
      trigger: (fire_at ? "schedule" : "manual") as "schedule" | "manual",
      fire_at,
      status: "queued" as const,
      progress: null,
      result: null,
      error: null,
    });
    const fire = "2026-11-25T20:05:00.000Z";
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    expect(await store.createRun(run(ids[0] as string, fire))).toBe(true);
    expect(await store.createRun(run(ids[1] as string, fire))).toBe(false);
    expect(await store.createRun(run(ids[2] as string, null))).toBe(true);
    expect(await store.createRun(run(ids[3] as string, null))).toBe(true);
    expect(await store.unfinishedRuns(a.id)).toBe(3);
    await store.updateRun("tenant-a", ids[0] as string, {
      status: "succeeded",
      result: { predictions: [{ score: 0.9 }] },
      progress: { rows_done: 1 },
      finished_at: "2026-11-25T20:05:01.000Z",
    });
    expect(await store.getRun("tenant-a", ids[0] as string)).toMatchObject({
      trigger: "schedule",
      status: "succeeded",
      result: { predictions: [{ score: 0.9 }] },
      progress: { rows_done: 1 },
    });
    expect(await store.getRun("tenant-b", ids[0] as string)).toBeNull();
    expect(await store.unfinishedRuns(a.id)).toBe(2);
    expect(await store.listRuns("tenant-a", a.id, 10)).toHaveLength(3);
  });

  test("notifications: one per agent, entity and window; delivery outcome stored", async () => {
    const a = await store.createAgent(newAgent("tenant-a", "alerts"));
    const alert = (entity_key: string, window_start: string) => ({
      id: crypto.randomUUID(),
      agent_id: a.id,
      tenant_id: "tenant-a",
      run_id: null,
      entity_key,
      window_start,
      score: 0.91,
      channel: "slack",
      status: "pending" as const,
    });
    const first = alert("id=1", "2026-11-25T20:00:00.000Z");
    expect(await store.createAlert(first)).toBe(true);
    const racing = await Promise.all(
      Array.from({ length: 5 }, () => store.createAlert(alert("id=1", "2026-11-25T20:00:00.000Z"))),
    );
    expect(racing.some(Boolean)).toBe(false);
    expect(await store.createAlert(alert("id=2", "2026-11-25T20:00:00.000Z"))).toBe(true);
    expect(await store.createAlert(alert("id=1", "2026-11-25T21:00:00.000Z"))).toBe(true);
    await store.updateAlert("tenant-a", first.id, {
      status: "delivered",
      attempts: 2,
      delivered_at: "2026-11-25T20:00:03.000Z",
    });
    expect(await store.getAlert("tenant-a", first.id)).toMatchObject({
      status: "delivered",
      attempts: 2,
      score: 0.91,
      last_error: null,
    });
    expect(await store.listAlerts("tenant-a", a.id, 10)).toHaveLength(3);
  });
});
