/**
 * Foundry agent scheduling with two service instances on one Postgres and one Redis (BullMQ):
 * both schedulers tick every 100 ms against the same agents, yet every cron fire runs once
 * (the predictions made across both instances equal the runs, fire times are distinct and
 * on the cron's seconds) and a scheduled alert reaches its webhook once per window. The
 * schedule survives the instances: after both stop, a fresh instance on the same control
 * plane carries on from the stored next fire time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { startTestService, type TestService } from "../harness.ts";
import { deleteRedisPrefix } from "../redis.ts";
import { waitFor } from "../wait.ts";
import {
  type CountingPredictor,
  rowScorePredictor,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./foundry-agents-support.ts";

const pg = engineUrl("postgres");
const redis = engineUrl("redis");
const d = pg && redis ? describe : describe.skip;

type Run = { status: string; fire_at: string | null; trigger: string };

d("foundry agents on two instances (Postgres + Redis)", () => {
  let db: { url: string; drop: () => Promise<void> };
  let prefix: string;
  let slug: string;
  let hook: WebhookReceiver;
  const instances: { svc: TestService; predictor: CountingPredictor; open: boolean }[] = [];

  const start = async () => {
    const predictor = rowScorePredictor();
    const svc = await startTestService(
      {
        DATABASE_URL: db.url,
        REDIS_URL: redis as string,
        CAIRN_REDIS_PREFIX: prefix,
        CAIRN_FOUNDRY_AGENT_TICK_MS: "100",
        CAIRN_FOUNDRY_AGENT_ALERT_BACKOFF_MS: "50",
        // One window for the whole suite: a second notification could only be a duplicate.
        CAIRN_FOUNDRY_AGENT_ALERT_WINDOW_MS: String(30 * 86_400_000),
      },
      { tenantSlug: slug, agentPredictor: predictor },
    );
    const entry = { svc, predictor, open: true };
    instances.push(entry);
    return entry;
  };
  const stop = async (i: { svc: TestService; open: boolean }) => {
    i.open = false;
    await i.svc.close();
  };

  beforeAll(async () => {
    db = await freshPostgresDatabase(pg as string);
    prefix = `cairn-ag${crypto.randomUUID().slice(0, 8)}`;
    slug = `t-${crypto.randomUUID().slice(0, 8)}`;
    hook = startWebhookReceiver();
  }, 60_000);
  afterAll(async () => {
    for (const i of instances) if (i.open) await i.svc.close();
    hook?.close();
    await deleteRedisPrefix(redis as string, prefix);
    await db?.drop();
  });

  test("each fire runs once across instances, alerts once per window, and the schedule survives them", async () => {
    const a = await start();
    const b = await start();
    const headers = {
      authorization: `Bearer ${await a.svc.token("ops@agents.test", "enterprise")}`,
      "content-type": "application/json",
    };
    const api = (svc: TestService, path: string, body?: unknown) =>
      svc.request(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
    const create = async (body: unknown) =>
      ((await (await api(a.svc, "/v1/foundry/agents", body)).json()) as { id: string }).id;
    const score = await create({
      name: "portfolio score",
      agent_type: "score",
      registry_id: "reg-score",
      schedule_cron: "* * * * * *",
      entity: { name: "portfolio", rows: [{ x: 0.3 }] },
    });
    const alert = await create({
      name: "limit breach",
      agent_type: "alert",
      registry_id: "reg-alert",
      alert_threshold: 0.5,
      alert_channel: "slack",
      alert_webhook: hook.url,
      schedule_cron: "* * * * * *",
      entity: { key_column: "desk", rows: [{ desk: "rates", x: 0.9 }] },
    });
    const runsOf = async (svc: TestService, id: string) =>
      ((await (await api(svc, `/v1/foundry/agents/${id}/runs`)).json()) as { runs: Run[] }).runs;
    const succeeded = async (svc: TestService, id: string) =>
      (await runsOf(svc, id)).filter((r) => r.status === "succeeded").length;

    await waitFor("four scheduled score runs", async () => (await succeeded(b.svc, score)) >= 4, {
      timeoutMs: 30_000,
      everyMs: 200,
    });
    await waitFor("four scheduled alert runs", async () => (await succeeded(b.svc, alert)) >= 4, {
      timeoutMs: 30_000,
      everyMs: 200,
    });
    await waitFor("the alert delivered", () => hook.posts.length >= 1, { timeoutMs: 10_000 });

    // Both instances stop; a third one on the same control plane carries the schedule on.
    await stop(a);
    await stop(b);
    const before = await (async () => {
      const c0 = await start();
      return { c: c0, n: await succeeded(c0.svc, score) };
    })();
    const { c } = before;
    await waitFor("runs after the restart", async () => (await succeeded(c.svc, score)) >= before.n + 2, {
      timeoutMs: 30_000,
      everyMs: 200,
    });
    for (const id of [score, alert]) await api(c.svc, `/v1/foundry/agents/${id}/pause`, {});
    await waitFor(
      "no run in flight",
      async () =>
        (await runsOf(c.svc, score)).every((r) => r.status !== "queued" && r.status !== "running") &&
        (await runsOf(c.svc, alert)).every((r) => r.status !== "queued" && r.status !== "running"),
      { timeoutMs: 20_000, everyMs: 100 },
    );

    for (const [id, registry] of [
      [score, "reg-score"],
      [alert, "reg-alert"],
    ] as const) {
      const runs = (await runsOf(c.svc, id)).filter((r) => r.trigger === "schedule");
      const fires = runs.map((r) => r.fire_at as string);
      // Every claimed fire is a distinct cron second.
      expect(new Set(fires).size).toBe(fires.length);
      for (const f of fires) expect(Date.parse(f) % 1000).toBe(0);
      // Each fire ran once: the predictions made on all three instances equal the runs that ran.
      const ran = runs.filter((r) => r.status === "succeeded").length;
      const calls = instances.flatMap((i) => i.predictor.calls).filter((x) => x.registryId === registry).length;
      expect(calls).toBe(ran);
    }
    // One notification for the desk in this window, however many instances and runs scored it.
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]?.body.text).toContain("desk=rates");
  }, 120_000);
});
