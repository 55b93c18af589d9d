/**
 * Foundry serving end to end on the Postgres + Redis profile (issue 17 "Must show"; spec 3.4,
 * 4.9; docs/foundry-serving.md): the control plane in a fresh Postgres database, the queue on
 * BullMQ in Redis, so the lab worker consumes the training job with `--redis`. German credit
 * (LogisticRegression only, to keep the run short) trained through the API, deployed on MLServer,
 * then predict (the fast path), a threshold that flips labels, drift (stable on the training rows,
 * critical for age after age + 40, from the prediction log in Postgres) and the template
 * explanation, all through the API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GERMAN_CREDIT_COLUMNS } from "../../cli/foundry-demo.ts";
import { FOUNDRY_TRAIN_QUEUE } from "../../domain/foundry/models/lab-job.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { type LabWorker, labWorkerDone, type ModelsFixture, startModelsFixture } from "../foundry-models.ts";
import { LAB_PYTHON } from "../lakehouse.ts";
import { deleteRedisPrefix } from "../redis.ts";
import { type MlserverHandle, SERVE_PYTHON, startMlserver } from "../serving.ts";
import { waitFor } from "../wait.ts";

type Row = Record<string, string | number | null>;
interface Predicted {
  threshold: number;
  served_by: string;
  predictions: { label: number; score: number; class: number }[];
}

const ROOT = join(import.meta.dir, "..", "..");
const pg = engineUrl("postgres");
const redis = engineUrl("redis");
const ready = Boolean(pg && redis && existsSync(LAB_PYTHON) && existsSync(SERVE_PYTHON));
const repository = mkdtempSync(join(tmpdir(), "cairn-mlserver-"));
let ml: MlserverHandle | undefined;
let fx: ModelsFixture | null = null;
let db: { url: string; drop: () => Promise<void> } | null = null;
const prefix = `cairn-sv${crypto.randomUUID().slice(0, 8)}`;
let modelId = "";
let model: { status: string; error: string | null; feature_importance: { feature: string }[] };
let rows: Row[] = [];

/** The lab worker on the service's BullMQ queues (the queue prefix is `<redis prefix>:bull`). */
function spawnRedisLabWorker(): LabWorker {
  const args = ["-m", "lab.worker", "--queue", FOUNDRY_TRAIN_QUEUE, "--redis", redis as string];
  const proc = spawn(LAB_PYTHON, [...args, "--prefix", `${prefix}:bull`, "--once"], {
    cwd: join(ROOT, "lab"),
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, PYTHONUNBUFFERED: "1" },
  });
  let log = "";
  proc.stderr?.on("data", (b: Buffer) => {
    log = (log + b.toString()).slice(-100_000);
  });
  return { proc, stderr: () => log };
}

const predict = (body: unknown) => (fx as ModelsFixture).post(`/v1/foundry/models/${modelId}/predict`, body);
const predicted = async (body: unknown) => {
  const res = await predict(body);
  expect(res.status).toBe(200);
  return (await res.json()) as Predicted;
};

beforeAll(async () => {
  if (!ready) return;
  ml = await startMlserver(repository);
  db = await freshPostgresDatabase(pg as string);
  fx = await startModelsFixture({
    DATABASE_URL: db.url,
    REDIS_URL: redis as string,
    CAIRN_REDIS_PREFIX: prefix,
    CAIRN_FOUNDRY_TRAIN_ALGORITHMS: "LogisticRegression",
    ...ml?.env,
  });
  if (!fx) return;
  const res = await fx.post("/v1/foundry/models/train", {
    dataset_id: fx.datasetId,
    name: "credit risk",
    target_column: "class",
  });
  expect(res.status).toBe(202);
  modelId = ((await res.json()) as { id: string }).id;
  await labWorkerDone(spawnRedisLabWorker());
  await waitFor(
    "the training run to be recorded",
    async () => {
      model = (await (await (fx as ModelsFixture).get(`/v1/foundry/models/${modelId}`)).json()) as typeof model;
      if (model.status === "failed") throw new Error(`training failed: ${model.error}`);
      return model.status === "ready";
    },
    { timeoutMs: 60_000, everyMs: 200 },
  );
  const kinds = (model as unknown as { result: { feature_kinds: { numeric: string[] } } }).result.feature_kinds;
  const numeric = new Set(kinds.numeric);
  const text = readFileSync(join(ROOT, "fixtures/ml/german_credit.csv"), "utf8").trim();
  rows = text.split("\n").map((line) => {
    const cells = line.split(",");
    const row: Row = {};
    GERMAN_CREDIT_COLUMNS.forEach((c, i) => {
      if (c !== "class") row[c] = numeric.has(c) ? Number(cells[i]) : (cells[i] as string);
    });
    return row;
  });
}, 300_000);

afterAll(async () => {
  await fx?.close();
  await ml?.stop();
  if (redis) await deleteRedisPrefix(redis, prefix);
  await db?.drop();
  rmSync(repository, { recursive: true, force: true });
});

describe.if(ready)("foundry serving on Postgres + Redis", () => {
  test("train → deploy → predict with a threshold → drift → explain through the API", async () => {
    const f = fx as ModelsFixture;
    expect(f.svc.service.store.sql.dialect).toBe("postgres");
    expect(f.svc.service.config.queue.kind).toBe("redis");
    const dep = await f.post(`/v1/foundry/models/${modelId}/deploy`, { model_name: "credit-risk" });
    expect(dep.status).toBe(202);
    expect(((await dep.json()) as { status: string }).status).toBe("deploying");
    await waitFor(
      "the deployment to answer 200",
      async () => (await predict({ rows: rows.slice(0, 1) })).status === 200,
      {
        timeoutMs: 120_000,
        everyMs: 250,
      },
    );
    const registry = await f.svc.service.store.sql.all<{ status: string }>(
      "SELECT status FROM foundry_deployments WHERE model_id = ?",
      [modelId],
    );
    expect(registry).toEqual([{ status: "active" }]);

    // Threshold: between the 10th and 11th of 20 scores, so exactly 10 labels are 1.
    const before = await predicted({ rows: rows.slice(0, 20) });
    expect(before.served_by).toBe("onnx");
    expect(before.threshold).toBe(0.5);
    const scores = before.predictions.map((p) => p.score).sort((a, b) => a - b);
    const t = Math.round(((scores[9] as number) + (scores[10] as number)) * 5e5) / 1e6;
    expect((await f.post(`/v1/foundry/models/${modelId}/threshold`, { threshold: t })).status).toBe(200);
    const after = await predicted({ rows: rows.slice(0, 20) });
    expect(after.threshold).toBe(t);
    expect(after.predictions.filter((p) => p.label === 1)).toHaveLength(10);
    after.predictions.forEach((p, i) => {
      expect(p.score).toBe(before.predictions[i]?.score as number);
      expect(p.label).toBe(p.score >= t ? 1 : 0);
      expect(p.class).toBe(p.label === 1 ? 2 : 1);
    });

    // Drift over the prediction log in Postgres: the training rows, then age + 40.
    await predicted({ rows: rows.slice(0, 1000) });
    type Drift = { status: string; predictions: number; features: { feature: string; status: string; psi: number }[] };
    const stable = (await (await f.get(`/v1/foundry/models/${modelId}/drift`)).json()) as Drift;
    expect(stable).toMatchObject({ status: "stable", predictions: 500 });
    const shifted = rows.slice(0, 500).map((r) => ({ ...r, age: (r.age as number) + 40 }));
    await predicted({ rows: shifted });
    const critical = (await (await f.get(`/v1/foundry/models/${modelId}/drift`)).json()) as Drift;
    expect(critical.status).toBe("critical");
    const age = critical.features.find((x) => x.feature === "age");
    expect(age?.status).toBe("critical");
    expect(age?.psi).toBeGreaterThan(0.2);
    const logged = await f.svc.service.store.sql.all<{ n: number }>(
      "SELECT count(*) AS n FROM foundry_predictions p JOIN foundry_deployments d ON d.id = p.deployment_id WHERE d.model_id = ?",
      [modelId],
    );
    // Every predicted row (the first 200 after the deploy, two batches of 20, 1,000 and 500).
    expect(Number(logged[0]?.n)).toBe(1 + 20 + 20 + 1000 + 500);

    // Explain: no language model configured, so the labelled template over the stored importances.
    const ex = (await (await f.get(`/v1/foundry/models/${modelId}/explain`)).json()) as {
      source: string;
      text: string;
      features: { feature: string }[];
    };
    expect(ex.source).toBe("template");
    const stored = model.feature_importance.map((x) => x.feature);
    expect(ex.features.length).toBeGreaterThan(0);
    for (const x of ex.features) expect(stored).toContain(x.feature);
    expect(ex.text).toContain(ex.features[0]?.feature as string);
  }, 240_000);
});
