/**
 * Foundry agents against a real deployment (issue 17 "Agents"; docs/foundry-agents.md): German
 * credit trained through the API (LogisticRegression only, to keep the run short), deployed on
 * MLServer, and agents whose registry_id is that deployment, predicting through the serving area
 * (FoundryServing, the service's own predictor; no test predictor). A predict agent's run answers
 * the very score of POST /models/{id}/predict; an alert agent with its threshold between two
 * rows' scores alerts for the higher one only, and the local webhook receiver gets it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GERMAN_CREDIT_COLUMNS } from "../../cli/foundry-demo.ts";
import { labWorkerDone, type ModelsFixture, spawnLabWorker, startModelsFixture } from "../foundry-models.ts";
import { LAB_PYTHON } from "../lakehouse.ts";
import { type MlserverHandle, SERVE_PYTHON, startMlserver } from "../serving.ts";
import { waitFor } from "../wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./foundry-agents-support.ts";

type Row = Record<string, string | number | null>;
type Scored = { score: number; label: number };

const ROOT = join(import.meta.dir, "..", "..");
const ready = existsSync(LAB_PYTHON) && existsSync(SERVE_PYTHON);
const repository = mkdtempSync(join(tmpdir(), "cairn-mlserver-"));
let ml: MlserverHandle | undefined;
let fx: ModelsFixture | null = null;
let hook: WebhookReceiver;
let modelId = "";
let registryId = "";
let rows: Row[] = [];

beforeAll(async () => {
  hook = startWebhookReceiver();
  if (!ready) return;
  ml = await startMlserver(repository);
  fx = await startModelsFixture({
    CAIRN_FOUNDRY_TRAIN_ALGORITHMS: "LogisticRegression",
    CAIRN_FOUNDRY_AGENT_ALERT_BACKOFF_MS: "50",
    ...ml?.env,
  });
  if (!fx) return;
  const res = await fx.post("/v1/foundry/models/train", {
    dataset_id: fx.datasetId,
    name: "credit risk",
    target_column: "class",
  });
  modelId = ((await res.json()) as { id: string }).id;
  await labWorkerDone(spawnLabWorker(fx.svc, { once: true }));
  const model = (await (await fx.get(`/v1/foundry/models/${modelId}`)).json()) as {
    status: string;
    error: string | null;
    result: { feature_kinds: { numeric: string[] } };
  };
  if (model.status !== "ready") throw new Error(`training ended ${model.status}: ${model.error}`);
  const numeric = new Set(model.result.feature_kinds.numeric);
  const text = readFileSync(join(ROOT, "fixtures/ml/german_credit.csv"), "utf8").trim();
  rows = text.split("\n").map((line) => {
    const cells = line.split(",");
    const row: Row = {};
    GERMAN_CREDIT_COLUMNS.forEach((c, i) => {
      if (c !== "class") row[c] = numeric.has(c) ? Number(cells[i]) : (cells[i] as string);
    });
    return row;
  });
  const dep = await fx.post(`/v1/foundry/models/${modelId}/deploy`, { model_name: "credit-agents" });
  registryId = ((await dep.json()) as { registry_id: string }).registry_id;
  const f = fx;
  await waitFor(
    "the deployment to be active",
    async () =>
      ((await (await f.get(`/v1/foundry/models/${modelId}/deployment`)).json()) as { status: string }).status ===
      "active",
    { timeoutMs: 120_000, everyMs: 250 },
  );
}, 300_000);

afterAll(async () => {
  await fx?.close();
  await ml?.stop();
  hook?.close();
  rmSync(repository, { recursive: true, force: true });
});

describe.if(ready)("foundry agents on a deployed model", () => {
  const createAgent = async (body: Record<string, unknown>) => {
    const res = await (fx as ModelsFixture).post("/v1/foundry/agents", body);
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const modelScores = async (part: Row[]) => {
    const res = await (fx as ModelsFixture).post(`/v1/foundry/models/${modelId}/predict`, { rows: part });
    expect(res.status).toBe(200);
    return ((await res.json()) as { predictions: Scored[] }).predictions;
  };

  test("a predict agent's run answers the same scores as POST /models/{id}/predict", async () => {
    const f = fx as ModelsFixture;
    const id = await createAgent({ name: "credit scorer", registry_id: registryId });
    const part = rows.slice(0, 5);
    const direct = await modelScores(part);
    const res = await f.post(`/v1/foundry/agents/${id}/run`, { rows: part });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { predictions: Scored[]; call_count: number };
    expect(out.call_count).toBe(1);
    expect(out.predictions.map((p) => [p.score, p.label])).toEqual(direct.map((p) => [p.score, p.label]));
    for (const p of out.predictions) {
      expect(p.score).toBeGreaterThan(0);
      expect(p.score).toBeLessThan(1);
    }
    // A row the model cannot take is the model's 422, through the agent too.
    const { age: _age, ...noAge } = rows[0] as Row;
    expect((await f.post(`/v1/foundry/agents/${id}/run`, { rows: [noAge] })).status).toBe(422);
  }, 60_000);

  test("an alert agent fires for the row above its threshold only; the webhook receiver gets it", async () => {
    const f = fx as ModelsFixture;
    // Two rows with well-separated scores; the threshold half-way between them.
    const scored = (await modelScores(rows.slice(0, 50))).map((p, i) => ({ i, score: p.score }));
    scored.sort((a, b) => a.score - b.score);
    const low = scored[0] as { i: number; score: number };
    const high = scored.at(-1) as { i: number; score: number };
    expect(high.score - low.score).toBeGreaterThan(0.1);
    const threshold = Math.round(((low.score + high.score) / 2) * 1e4) / 1e4;
    const id = await createAgent({
      name: "credit watch",
      agent_type: "alert",
      registry_id: registryId,
      alert_threshold: threshold,
      alert_channel: "slack",
      alert_webhook: hook.url,
    });
    const res = await f.post(`/v1/foundry/agents/${id}/run`, {
      rows: [rows[low.i], rows[high.i]],
      key_column: "age",
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { predictions: Scored[]; alerts: { entity_key: string; status: string }[] };
    expect(out.predictions.map((p) => p.score)).toEqual([low.score, high.score]);
    const key = `age=${(rows[high.i] as Row).age}`;
    expect(out.alerts).toEqual([expect.objectContaining({ entity_key: key, status: "queued" })]);
    await waitFor("the webhook to receive the alert", async () => hook.posts.length > 0, {
      timeoutMs: 15_000,
      everyMs: 50,
    });
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]?.status).toBe(200);
    expect(hook.posts[0]?.body.text).toContain(`agent "credit watch" scored ${key} at ${high.score.toFixed(4)}`);
    await waitFor(
      "the delivery recorded",
      async () => {
        const { alerts } = (await (await f.get(`/v1/foundry/agents/${id}/alerts`)).json()) as {
          alerts: { status: string }[];
        };
        return alerts.length === 1 && alerts[0]?.status === "delivered";
      },
      { timeoutMs: 15_000, everyMs: 50 },
    );
  }, 60_000);
});
