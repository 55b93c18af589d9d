/**
 * Foundry agents end to end on the embedded profile, through the API: create (exact body),
 * the 422 rules, list/get/pause/resume/delete; predict on demand with call_count counted
 * atomically; an alert to a local webhook receiver retried after its first 500 and not
 * re-sent in the same window; a scheduled alert by e-mail through a real SMTP server; a
 * paused agent neither runs nor alerts; a score agent re-scored on its cron; a model that is
 * not deployed recorded as the run's failure; a batch agent writing its output table, read
 * back through the lab gateway. Predictions come from a predictor implementing the agents'
 * own port, so any score is on demand; agents on a real deployment: foundry-agents-deployed.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { LakehousePort } from "../../domain/lakehouse/ports.ts";
import { lakehouseNamespace } from "../../domain/tenants/namespaces.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { startTestSmtp, type TestSmtp } from "../smtp.ts";
import { waitFor } from "../wait.ts";
import {
  type CountingPredictor,
  rowScorePredictor,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./foundry-agents-support.ts";

let svc: TestService;
let smtp: TestSmtp;
let hook: WebhookReceiver;
let gateway: GatewayHandle | undefined;
let predictor: CountingPredictor;
let headers: Record<string, string>;

beforeAll(async () => {
  smtp = await startTestSmtp();
  hook = startWebhookReceiver(1);
  gateway = await startGateway();
  predictor = rowScorePredictor();
  svc = await startTestService(
    {
      CAIRN_SMTP_URL: smtp.url,
      CAIRN_MAIL_FROM: "alerts@cairn.test",
      CAIRN_FOUNDRY_AGENT_TICK_MS: "100",
      CAIRN_FOUNDRY_AGENT_ALERT_BACKOFF_MS: "50",
      // One window for the whole suite: a second notification could only be a duplicate.
      CAIRN_FOUNDRY_AGENT_ALERT_WINDOW_MS: String(30 * 86_400_000),
      CAIRN_FOUNDRY_AGENT_ALERT_ATTEMPTS: "3",
      CAIRN_FOUNDRY_AGENT_BATCH_ROWS: "7",
      ...(gateway ? { CAIRN_LAKEHOUSE_URL: gateway.url } : {}),
    },
    { agentPredictor: predictor },
  );
  headers = {
    authorization: `Bearer ${await svc.token("agents@foundry.test", "enterprise")}`,
    "content-type": "application/json",
  };
}, 120_000);
afterAll(async () => {
  await svc?.close();
  hook?.close();
  await smtp?.close();
  await gateway?.stop();
});

type Agent = { id: string; status: string; call_count: number; next_fire_at: string | null };
type Run = {
  id: string;
  trigger: string;
  status: string;
  fire_at: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: the run's result is the agent type's JSON; the assertions read into it
  result: any;
  progress: unknown;
  error: string | null;
  finished_at: string | null;
};

const post = (path: string, body?: unknown) =>
  svc.request(path, { method: "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
const get = (path: string) => svc.request(path, { headers });
async function create(body: Record<string, unknown>): Promise<string> {
  const res = await post("/v1/foundry/agents", body);
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}
const agent = async (id: string) => (await (await get(`/v1/foundry/agents/${id}`)).json()) as Agent;
const runs = async (id: string) =>
  ((await (await get(`/v1/foundry/agents/${id}/runs`)).json()) as { runs: Run[] }).runs;
const alerts = async (id: string) =>
  ((await (await get(`/v1/foundry/agents/${id}/alerts`)).json()) as { alerts: Record<string, unknown>[] }).alerts;

describe("foundry agents: records and states", () => {
  test("create answers exactly the spec's fields; list, get, pause, resume, delete", async () => {
    const res = await post("/v1/foundry/agents", { name: "deal scorer", registry_id: "reg-1" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["agent_type", "call_count", "created_at", "id", "name", "status"]);
    expect(body).toMatchObject({ name: "deal scorer", agent_type: "predict", status: "active", call_count: 0 });
    const id = body.id as string;

    const list = (await (await get("/v1/foundry/agents")).json()) as { agents: Record<string, unknown>[] };
    const mine = list.agents.find((a) => a.id === id);
    expect(mine).toMatchObject({ description: null, alert_threshold: null, schedule_cron: null, status: "active" });
    for (const k of ["updated_at", "created_at", "alert_channel", "call_count"]) expect(mine).toHaveProperty(k);
    expect(mine).not.toHaveProperty("alert_webhook");

    // Another tenant's user sees none of it.
    const other = await svc.addTenant();
    const theirs = { authorization: `Bearer ${await other.token("else@other.test")}` };
    expect((await svc.request(`/v1/foundry/agents/${id}`, { headers: theirs })).status).toBe(404);
    expect((await svc.request(`/v1/foundry/agents/${id}/pause`, { method: "POST", headers: theirs })).status).toBe(404);
    const their = (await (await svc.request("/v1/foundry/agents", { headers: theirs })).json()) as {
      agents: unknown[];
    };
    expect(their.agents).toEqual([]);

    expect(((await (await post(`/v1/foundry/agents/${id}/pause`)).json()) as Agent).status).toBe("paused");
    expect((await post(`/v1/foundry/agents/${id}/run`, { rows: [{ x: 1 }] })).status).toBe(409);
    expect(((await (await post(`/v1/foundry/agents/${id}/resume`)).json()) as Agent).status).toBe("active");
    const del = await svc.request(`/v1/foundry/agents/${id}`, { method: "DELETE", headers });
    expect(((await del.json()) as Agent).status).toBe("deleted");
    const after = (await (await get("/v1/foundry/agents")).json()) as { agents: { id: string }[] };
    expect(after.agents.some((a) => a.id === id)).toBe(false);
    expect((await get(`/v1/foundry/agents/${id}`)).status).toBe(404);
    expect((await post(`/v1/foundry/agents/${id}/resume`)).status).toBe(404);
  });

  test("the 422 rules: name, alert fields, webhook shape, cron required and parsed by croner", async () => {
    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await post("/v1/foundry/agents", body);
      expect(res.status).toBe(422);
      const detail = ((await res.json()) as { detail: { loc: string[]; msg: string }[] }).detail;
      const hit = detail.find((d) => d.loc.includes(field));
      expect(hit).toBeDefined();
      return hit?.msg ?? "";
    };
    await refused({ description: "no name" }, "name");
    await refused(
      { name: "a", agent_type: "alert", alert_channel: "slack", alert_webhook: hook.url },
      "alert_threshold",
    );
    await refused({ name: "a", agent_type: "alert", alert_threshold: 0.5, alert_webhook: hook.url }, "alert_channel");
    await refused({ name: "a", agent_type: "alert", alert_threshold: 0.5, alert_channel: "slack" }, "alert_webhook");
    await refused(
      { name: "a", agent_type: "alert", alert_threshold: 0.5, alert_channel: "slack", alert_webhook: "not a url" },
      "alert_webhook",
    );
    await refused(
      { name: "a", agent_type: "alert", alert_threshold: 0.5, alert_channel: "email", alert_webhook: "https://x.test" },
      "alert_webhook",
    );
    await refused({ name: "a", agent_type: "score", entity: { rows: [{ x: 1 }] } }, "schedule_cron");
    const msg = await refused(
      { name: "a", agent_type: "score", schedule_cron: "61 * * * *", entity: { rows: [{ x: 1 }] } },
      "schedule_cron",
    );
    expect(msg).toContain("minute");
    await refused({ name: "a", agent_type: "batch", schedule_cron: "0 * * * *" }, "entity");
  });
});

describe("foundry agents: runs", () => {
  test("predict on demand: the model's predictions, call_count counted atomically", async () => {
    const id = await create({ name: "predictor", registry_id: "reg-credit" });
    const res = await post(`/v1/foundry/agents/${id}/run`, { rows: [{ x: 0.7 }, { x: 0.2 }] });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { predictions: { score: number; label: number }[]; call_count: number };
    expect(out.predictions).toEqual([
      { score: 0.7, label: 1 },
      { score: 0.2, label: 0 },
    ]);
    expect(out.call_count).toBe(1);
    const all = await Promise.all(
      Array.from({ length: 8 }, () => post(`/v1/foundry/agents/${id}/run`, { rows: [{ x: 1 }] })),
    );
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect((await agent(id)).call_count).toBe(9);
    expect((await post(`/v1/foundry/agents/${id}/run`, { rows: [] })).status).toBe(422);
  });

  test("slack alert: retried after the receiver's 500, delivered once, not re-sent in the window", async () => {
    const id = await create({
      name: "fraud watch",
      agent_type: "alert",
      registry_id: "reg-fraud",
      alert_threshold: 0.8,
      alert_channel: "slack",
      alert_webhook: hook.url,
    });
    const rows = [
      { id: 1, x: 0.95 },
      { id: 2, x: 0.1 },
      { id: 3, x: 0.8 },
    ];
    const res = await post(`/v1/foundry/agents/${id}/run`, { rows, key_column: "id" });
    const out = (await res.json()) as { alerts: { entity_key: string; status: string }[] };
    expect(out.alerts).toEqual([expect.objectContaining({ entity_key: "id=1", status: "queued" })]);
    await waitFor("the alert delivered", async () => (await alerts(id))[0]?.status === "delivered", {
      timeoutMs: 15_000,
      everyMs: 50,
    });
    const [alert] = await alerts(id);
    expect(alert).toMatchObject({ entity_key: "id=1", attempts: 2, channel: "slack" });
    expect(hook.posts.map((p) => p.status)).toEqual([500, 200]);
    expect(hook.posts[1]?.body.text).toContain('agent "fraud watch" scored id=1 at 0.9500');
    expect(Array.isArray(hook.posts[1]?.body.blocks)).toBe(true);

    const again = (await (await post(`/v1/foundry/agents/${id}/run`, { rows, key_column: "id" })).json()) as {
      alerts: { status: string }[];
    };
    expect(again.alerts).toEqual([expect.objectContaining({ status: "duplicate" })]);
    await Bun.sleep(300);
    expect(hook.posts).toHaveLength(2);
    expect(await alerts(id)).toHaveLength(1);
  });

  test("scheduled e-mail alert: fires on its cron through SMTP, once per window; paused: nothing runs", async () => {
    const id = await create({
      name: "covenant breach",
      agent_type: "alert",
      registry_id: "reg-cov",
      alert_threshold: 0.5,
      alert_channel: "email",
      alert_webhook: "risk@bank.test",
      schedule_cron: "* * * * * *",
      entity: { name: "ACME loan", key_column: "loan", rows: [{ loan: "acme-7", x: 0.9 }] },
    });
    await waitFor(
      "three scheduled runs",
      async () => (await runs(id)).filter((r) => r.status === "succeeded").length >= 3,
      {
        timeoutMs: 20_000,
        everyMs: 100,
      },
    );
    await waitFor("the e-mail", () => smtp.received.some((m) => m.envelope.to.includes("risk@bank.test")), {
      timeoutMs: 10_000,
    });
    const mails = smtp.received.filter((m) => m.envelope.to.includes("risk@bank.test"));
    expect(mails).toHaveLength(1);
    expect(mails[0]?.parsed.subject).toBe("Cairn alert: covenant breach");
    expect(mails[0]?.parsed.text).toContain("Entity: loan=acme-7");
    const done = (await runs(id)).filter((r) => r.status === "succeeded");
    expect(new Set(done.map((r) => r.fire_at)).size).toBe(done.length);
    expect(done.every((r) => r.trigger === "schedule")).toBe(true);
    const statuses = done.map((r) => r.result.alerts[0].status);
    expect(statuses.filter((s: string) => s === "queued")).toHaveLength(1);

    await post(`/v1/foundry/agents/${id}/pause`);
    // A fire claimed just before the pause settles (its run finishes or is skipped).
    await waitFor(
      "no run in flight",
      async () => (await runs(id)).every((r) => r.status !== "queued" && r.status !== "running"),
      { timeoutMs: 10_000, everyMs: 100 },
    );
    const before = (await runs(id)).length;
    const calls = predictor.calls.filter((c) => c.registryId === "reg-cov").length;
    await Bun.sleep(2_500); // more than two fires of the cron
    expect((await runs(id)).length).toBe(before);
    expect(predictor.calls.filter((c) => c.registryId === "reg-cov")).toHaveLength(calls);
    expect((await agent(id)).next_fire_at).toBeNull();
  });

  test("score agent re-scores its entity on the cron; an undeployed model is the run's recorded failure", async () => {
    const id = await create({
      name: "company score",
      agent_type: "score",
      registry_id: "reg-score",
      schedule_cron: "* * * * * *",
      entity: { name: "ACME", rows: [{ x: 0.4 }] },
    });
    await waitFor("two scored runs", async () => (await runs(id)).filter((r) => r.status === "succeeded").length >= 2, {
      timeoutMs: 20_000,
      everyMs: 100,
    });
    await post(`/v1/foundry/agents/${id}/pause`);
    const run = (await runs(id)).find((r) => r.status === "succeeded");
    expect(run?.result).toMatchObject({ entity: "ACME", rows: 1, predictions: [{ score: 0.4, label: 0 }] });
    expect((await agent(id)).call_count).toBeGreaterThanOrEqual(2);

    const bad = await create({
      name: "not deployed",
      agent_type: "score",
      registry_id: "undeployed",
      schedule_cron: "* * * * * *",
      entity: { rows: [{ x: 1 }] },
    });
    // No body at all is a run request too.
    const manual = await svc.request(`/v1/foundry/agents/${bad}/run`, {
      method: "POST",
      headers: { authorization: headers.authorization as string },
    });
    expect(manual.status).toBe(202);
    await waitFor("a failed run", async () => (await runs(bad)).some((r) => r.status === "failed"), {
      timeoutMs: 20_000,
      everyMs: 100,
    });
    await post(`/v1/foundry/agents/${bad}/pause`);
    expect((await runs(bad)).find((r) => r.status === "failed")?.error).toBe("conflict: model not deployed");
  });

  test("batch agent scores every row in bounded batches and writes the output table", async () => {
    if (!gateway) return;
    const tenant = await svc.service.store.getTenant(svc.tenantId);
    const lake = svc.service.engines.lakehouse as LakehousePort;
    const ns = await lake.ensureNamespace({ tenantId: svc.tenantId, slug: tenant?.slug as string });
    const rows = Array.from({ length: 30 }, (_, i) => [i + 1, `deal-${i + 1}`, (i % 10) / 10]);
    await lake.write(ns, "deals", {
      mode: "overwrite",
      columns: [
        { name: "id", type: "long" },
        { name: "name", type: "string" },
        { name: "x", type: "double" },
      ],
      rows,
    });
    const id = await create({
      name: "nightly deals",
      agent_type: "batch",
      registry_id: "reg-deals",
      schedule_cron: "*/2 * * * * *",
      entity: { table: "deals", output_table: "deals_scored" },
    });
    const a = (await agent(id)) as Agent & { batch_dag_id: string };
    expect(a.batch_dag_id).toBe(`agent-${id}-batch`);
    await waitFor("a batch run", async () => (await runs(id)).some((r) => r.status === "succeeded"), {
      timeoutMs: 60_000,
      everyMs: 200,
    });
    await post(`/v1/foundry/agents/${id}/pause`);
    const run = (await runs(id)).find((r) => r.status === "succeeded") as Run;
    expect(run.trigger).toBe("schedule");
    expect(run.result).toMatchObject({
      workflow: `agent-${id}-batch`,
      rows: 30,
      batches: 5,
      output_table: "deals_scored",
    });
    expect(run.progress).toEqual({ rows_done: 30, rows_total: 30, batches_done: 5, batches_total: 5 });
    expect(ns).toBe(lakehouseNamespace(tenant?.slug as string));
    const out = await lake.sql(ns, "SELECT id, x, prediction_score, prediction_label FROM deals_scored ORDER BY id");
    expect(out.rows).toHaveLength(30);
    for (const r of out.rows) {
      expect(Number(r[2])).toBeCloseTo(Number(r[1]), 12);
      expect(r[3]).toBe(Number(r[1]) >= 0.5 ? "1" : "0");
    }

    // A score agent whose entity is a row of the same table, read by key.
    const scorer = await create({
      name: "deal 4",
      agent_type: "score",
      registry_id: "reg-deals",
      schedule_cron: "0 0 1 1 *",
      entity: { table: "deals", key_column: "name", key: "deal-4" },
    });
    expect((await post(`/v1/foundry/agents/${scorer}/run`, {})).status).toBe(202);
    await waitFor("the keyed score run", async () => (await runs(scorer)).some((r) => r.finished_at !== null), {
      timeoutMs: 30_000,
      everyMs: 100,
    });
    const keyed = (await runs(scorer))[0] as Run;
    expect(keyed).toMatchObject({ status: "succeeded", trigger: "manual" });
    expect(keyed.result).toMatchObject({
      entity: "deals.name=deal-4",
      rows: 1,
      predictions: [{ score: 0.3, label: 0 }],
    });
  }, 90_000);
});
