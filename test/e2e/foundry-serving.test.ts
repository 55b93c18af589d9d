/**
 * Foundry serving end to end on the embedded profile (spec 2.8, 3.4, 4.9; issue 17;
 * docs/foundry-serving.md): German credit trained through the API and the lab worker
 * (LogisticRegression only, to keep the run short), MLServer started on a model repository
 * (lab/.venv-serve, python -m lab.serving.serve), then deploy (202 deploying; predict 503 +
 * Retry-After until active), predict one row (served by the ONNX fast path) and a batch, 422 for unknown/missing columns,
 * another tenant 404, the threshold flipping labels, drift (insufficient data, stable on the
 * training rows, critical after age + 40), the template explanation whose every number and
 * feature is stored, the KServe manifest, and a restart: MLServer stopped and started again on
 * the same repository and a new service on the same data directory (CAIRN_FOUNDRY_FAST_PATH=off)
 * find the deployment active and predict over OIP the fast path's scores (to 1e-6) and labels, and load a deployment left `deploying` again; that service has a
 * local OpenAI-compatible model for explain. Also a redeploy (version 2) and a name taken (409).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GERMAN_CREDIT_COLUMNS } from "../../cli/foundry-demo.ts";
import { labWorkerDone, type ModelsFixture, spawnLabWorker, startModelsFixture } from "../foundry-models.ts";
import { startTestService, type TestService } from "../harness.ts";
import { LAB_PYTHON } from "../lakehouse.ts";
import { type MlserverHandle, SERVE_PYTHON, startMlserver } from "../serving.ts";
import { waitFor } from "../wait.ts";

type Row = Record<string, string | number | null>;
interface Prediction {
  label: number;
  score: number;
  class: number;
}
interface Predicted {
  version: number;
  threshold: number;
  served_by: "onnx" | "oip";
  predictions: Prediction[];
}

const ROOT = join(import.meta.dir, "..", "..");
const repository = mkdtempSync(join(tmpdir(), "cairn-mlserver-"));
let ml: MlserverHandle | undefined;
let fx: ModelsFixture | null = null;
let svc2: TestService | null = null;
let modelId = "";
let secondId = "";
let secondRegistryId = "";
let model: { feature_kinds: { numeric: string[] }; result: Record<string, unknown> } & Record<string, unknown>;
let rows: Row[] = [];
let llmText = "";
const llm = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () =>
    Response.json({
      id: "x",
      model: "m-local",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: llmText } }],
    }),
});

/** German credit's rows as the API takes them: numbers for the model's numeric features. */
function csvRows(numeric: Set<string>): Row[] {
  const text = readFileSync(join(ROOT, "fixtures/ml/german_credit.csv"), "utf8").trim();
  return text.split("\n").map((line) => {
    const cells = line.split(",");
    const row: Row = {};
    GERMAN_CREDIT_COLUMNS.forEach((c, i) => {
      if (c === "class") return;
      row[c] = numeric.has(c) ? Number(cells[i]) : (cells[i] as string);
    });
    return row;
  });
}

const predict = (body: unknown, f: { post(p: string, b: unknown): Promise<Response> } | null = fx) =>
  (f as ModelsFixture).post(`/v1/foundry/models/${modelId}/predict`, body);

beforeAll(async () => {
  if (!existsSync(LAB_PYTHON) || !existsSync(SERVE_PYTHON)) {
    if (process.env.CI) throw new Error("the lab venvs must exist under CI");
    return;
  }
  ml = await startMlserver(repository);
  fx = await startModelsFixture({ CAIRN_FOUNDRY_TRAIN_ALGORITHMS: "LogisticRegression", ...ml?.env });
  if (!fx) return;
  const res = await fx.post("/v1/foundry/models/train", {
    dataset_id: fx.datasetId,
    name: "credit risk",
    target_column: "class",
  });
  modelId = ((await res.json()) as { id: string }).id;
  // A second run on the same data: another model that wants the first one's name.
  const second = await fx.post("/v1/foundry/models/train", {
    dataset_id: fx.datasetId,
    name: "credit risk 2",
    target_column: "class",
  });
  secondId = ((await second.json()) as { id: string }).id;
  await labWorkerDone(spawnLabWorker(fx.svc, { once: true }));
  model = (await (await fx.get(`/v1/foundry/models/${modelId}`)).json()) as typeof model;
  if (model.status !== "ready") throw new Error(`training ended ${model.status}: ${model.error}`);
  const kinds = model.result.feature_kinds as { numeric: string[] };
  rows = csvRows(new Set(kinds.numeric));
}, 300_000);

afterAll(async () => {
  await svc2?.close();
  await fx?.close();
  await ml?.stop();
  llm.stop(true);
  rmSync(repository, { recursive: true, force: true });
});

describe.if(existsSync(LAB_PYTHON) && existsSync(SERVE_PYTHON))("foundry serving", () => {
  test("deploy: 422 for a bad name, 202 deploying, predict 503 + Retry-After until active, then 200", async () => {
    const f = fx as ModelsFixture;
    for (const bad of ["Credit", "credit_risk", "-credit", "x".repeat(41), ""]) {
      const r = await f.post(`/v1/foundry/models/${modelId}/deploy`, { model_name: bad });
      expect(r.status).toBe(422);
    }
    expect((await predict({ rows: rows.slice(0, 1) })).status).toBe(409); // never deployed
    const res = await f.post(`/v1/foundry/models/${modelId}/deploy`, { model_name: "credit-risk" });
    expect(res.status).toBe(202);
    const dep = (await res.json()) as Record<string, unknown>;
    expect(dep).toMatchObject({ model_id: modelId, model_name: "credit-risk", version: 1, status: "deploying" });
    expect(dep.registry_id).toBe(dep.id);
    expect(dep.artifact_sha256).toBe((model.artifact as { sha256: string }).sha256);

    const first = await predict({ rows: rows.slice(0, 1) });
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    let answered: Response | null = null;
    await waitFor(
      "the deployment to answer 200",
      async () => {
        const r = await predict({ rows: rows.slice(0, 1) });
        if (r.status === 200) answered = r;
        else expect(r.status).toBe(503);
        return r.status === 200;
      },
      { timeoutMs: 120_000, everyMs: 250 },
    );
    const one = (await (answered as unknown as Response).json()) as Predicted;
    expect(one.version).toBe(1);
    expect(one.threshold).toBe(0.5);
    // LogisticRegression converts to ONNX: the service scores it itself (the fast path is on by default).
    expect(one.served_by).toBe("onnx");
    expect(one.predictions).toHaveLength(1);
    const p = one.predictions[0] as Prediction;
    expect(p.score).toBeGreaterThan(0);
    expect(p.score).toBeLessThan(1);
    expect(p.label).toBe(p.score >= 0.5 ? 1 : 0);
    expect(p.class).toBe(p.label === 1 ? 2 : 1); // classes [1, 2]: the positive class is 2 (bad)
    const state = (await (await f.get(`/v1/foundry/models/${modelId}/deployment`)).json()) as { status: string };
    expect(state.status).toBe("active");
    // One prediction logged: drift has too little to compare, and says so without a number.
    const drift = (await (await f.get(`/v1/foundry/models/${modelId}/drift`)).json()) as Record<string, unknown>;
    expect(drift).toMatchObject({ status: "insufficient_data", predictions: 1, minimum: 50, features: [] });
    // The model keeps its name; another name for it is refused.
    expect((await f.post(`/v1/foundry/models/${modelId}/deploy`, { model_name: "other" })).status).toBe(409);
  }, 180_000);

  test("a batch (rows and its alias instances), 422 naming unknown and missing columns, another tenant 404", async () => {
    const f = fx as ModelsFixture;
    const batch = (await (await predict({ rows: rows.slice(0, 20) })).json()) as Predicted;
    expect(batch.predictions).toHaveLength(20);
    for (const p of batch.predictions) expect(p.label).toBe(p.score >= 0.5 ? 1 : 0);
    const alias = (await (await predict({ instances: rows.slice(0, 20) })).json()) as Predicted;
    expect(alias.predictions.map((p) => p.score)).toEqual(batch.predictions.map((p) => p.score));

    const unknown = await predict({ rows: [{ ...rows[0], shoe_size: 42 }] });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(await unknown.json())).toContain("shoe_size");
    const { age: _age, ...noAge } = rows[0] as Row;
    const missing = await predict({ rows: [noAge] });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(await missing.json())).toContain("missing feature column(s): age");
    expect((await predict({ rows: [] })).status).toBe(422);

    const other = await f.svc.addTenant();
    const h = {
      authorization: `Bearer ${await other.token("other@serving.test")}`,
      "content-type": "application/json",
    };
    for (const [method, path, body] of [
      ["POST", "predict", { rows: rows.slice(0, 1) }],
      ["POST", "deploy", { model_name: "stolen" }],
      ["GET", "drift", undefined],
      ["GET", "explain", undefined],
    ] as const) {
      const r = await f.svc.request(`/v1/foundry/models/${modelId}/${path}`, {
        method,
        headers: h,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(r.status).toBe(404);
    }
  }, 60_000);

  test("redeploy: the same name is version 2 (503 until active again); another model cannot take the name", async () => {
    const f = fx as ModelsFixture;
    const taken = await f.post(`/v1/foundry/models/${secondId}/deploy`, { model_name: "credit-risk" });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { detail: string }).detail).toContain("taken");
    const again = await f.post(`/v1/foundry/models/${modelId}/deploy`, { model_name: "credit-risk" });
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ version: 2, status: "deploying" });
    await waitFor(
      "version 2 to answer 200",
      async () => {
        const r = await predict({ rows: rows.slice(0, 1) });
        if (r.status !== 200) {
          expect(r.status).toBe(503);
          return false;
        }
        expect(((await r.json()) as Predicted).version).toBe(2);
        return true;
      },
      { timeoutMs: 120_000, everyMs: 250 },
    );
    // The second model under its own name, through its registry id.
    const own = await f.post(`/v1/foundry/models/${secondId}/deploy`, { model_name: "credit-risk-2" });
    expect(own.status).toBe(202);
    const registryId = ((await own.json()) as { id: string }).id;
    secondRegistryId = registryId;
    await waitFor(
      "the second model to be active",
      async () =>
        ((await (await f.get(`/v1/foundry/models/${registryId}/deployment`)).json()) as { status: string }).status ===
        "active",
      { timeoutMs: 120_000, everyMs: 250 },
    );
    const viaRegistry = await f.post(`/v1/foundry/models/${registryId}/predict`, { rows: rows.slice(0, 2) });
    expect(viaRegistry.status).toBe(200);
    expect(await viaRegistry.json()).toMatchObject({ model_id: secondId, model_name: "credit-risk-2", version: 1 });
  }, 240_000);

  test("threshold: 0 and 1 refused, a new threshold flips the labels, a metric returns the best threshold", async () => {
    const f = fx as ModelsFixture;
    for (const bad of [0, 1, -0.2, 1.5]) {
      expect((await f.post(`/v1/foundry/models/${modelId}/threshold`, { threshold: bad })).status).toBe(422);
    }
    const before = (await (await predict({ rows: rows.slice(0, 20) })).json()) as Predicted;
    const scores = before.predictions.map((p) => p.score).sort((a, b) => a - b);
    const t = Math.round(((scores[9] as number) + (scores[10] as number)) * 5e5) / 1e6; // between the 10th and 11th
    const set = await f.post(`/v1/foundry/models/${modelId}/threshold`, { threshold: t, threshold_metric: "f1" });
    expect(set.status).toBe(200);
    const body = (await set.json()) as { threshold: number; best_threshold: { threshold: number; value: number } };
    expect(body.threshold).toBe(t);
    expect(body.best_threshold.threshold).toBeGreaterThan(0);
    expect(body.best_threshold.threshold).toBeLessThan(1);
    expect(body.best_threshold.value).toBeGreaterThan(0);
    const after = (await (await predict({ rows: rows.slice(0, 20) })).json()) as Predicted;
    expect(after.threshold).toBe(t);
    expect(after.predictions.filter((p) => p.label === 1)).toHaveLength(10);
    after.predictions.forEach((p, i) => {
      expect(p.score).toBe((before.predictions[i] as Prediction).score);
      expect(p.label).toBe(p.score >= t ? 1 : 0);
    });
    await f.post(`/v1/foundry/models/${modelId}/threshold`, { threshold: 0.5 });
  }, 60_000);

  test("drift: stable on the training rows, critical for age after age + 40", async () => {
    const f = fx as ModelsFixture;
    // All 1,000 rows of German credit: the window holds the last 500, drawn like the training split.
    expect((await predict({ rows })).status).toBe(200);
    const stable = (await (await f.get(`/v1/foundry/models/${modelId}/drift`)).json()) as {
      status: string;
      predictions: number;
      features: { feature: string; psi: number; status: string; action: string }[];
    };
    expect(stable.predictions).toBe(500);
    expect(stable.status).toBe("stable");
    expect(stable.features.map((x) => x.feature).sort()).toEqual(
      GERMAN_CREDIT_COLUMNS.filter((c) => c !== "class").sort(),
    );
    for (const x of stable.features) expect(x).toMatchObject({ status: "stable", action: "none" });

    const shifted = rows.slice(0, 500).map((r) => ({ ...r, age: (r.age as number) + 40 }));
    expect((await predict({ rows: shifted })).status).toBe(200);
    const critical = (await (await f.get(`/v1/foundry/models/${modelId}/drift`)).json()) as typeof stable & {
      action: string;
    };
    expect(critical.status).toBe("critical");
    expect(critical.action).toBe("retraining recommended");
    const age = critical.features.find((x) => x.feature === "age");
    expect(age?.status).toBe("critical");
    expect(age?.psi).toBeGreaterThan(0.2);
    expect(critical.features.find((x) => x.feature === "duration")?.status).toBe("stable");
  }, 120_000);

  test("explain without a language model: the template, every number and feature from the record", async () => {
    const f = fx as ModelsFixture;
    const ex = (await (await f.get(`/v1/foundry/models/${modelId}/explain`)).json()) as {
      source: string;
      text: string;
      features: { feature: string; importance: number }[];
    };
    expect(ex.source).toBe("template");
    const stored = (model.feature_importance as { feature: string; importance: number }[]).map((x) => x.feature);
    expect(ex.features.length).toBeGreaterThan(0);
    for (const x of ex.features) expect(stored).toContain(x.feature);
    expect(ex.text).toContain((ex.features[0] as { feature: string }).feature);
    expectOnlyStoredNumbers(ex.text);
  });

  test("the KServe manifest: an InferenceService in raw deployment mode on the MLServer runtime", async () => {
    const f = fx as ModelsFixture;
    const m = (await (await f.get(`/v1/foundry/models/${modelId}/deploy/manifest`)).json()) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string; annotations: Record<string, string> };
      spec: { predictor: { model: { protocolVersion: string; runtime: string; storageUri: string } } };
    };
    expect(m.apiVersion).toBe("serving.kserve.io/v1beta1");
    expect(m.kind).toBe("InferenceService");
    expect(m.metadata.name).toBe("credit-risk");
    expect(m.metadata.annotations["serving.kserve.io/deploymentMode"]).toBe("RawDeployment");
    expect(m.spec.predictor.model.protocolVersion).toBe("v2");
    expect(m.spec.predictor.model.runtime).toBe("cairn-mlserver");
    const sha = (model.artifact as { sha256: string }).sha256;
    expect(m.spec.predictor.model.storageUri).toEndWith(`${sha}.joblib`);
  });

  test("restart: MLServer and a new service (fast path off) find the deployment active, the same scores over OIP", async () => {
    const f = fx as ModelsFixture;
    const sample = rows.slice(0, 300);
    const before = (await (await predict({ rows: sample })).json()) as Predicted;
    expect(before.served_by).toBe("onnx");
    await ml?.stop();
    // What a service stopped in the middle of a deploy leaves behind: a row still `deploying`.
    await f.svc.service.store.sql.run("UPDATE foundry_deployments SET status = 'deploying' WHERE id = ?", [
      secondRegistryId,
    ]);
    ml = await startMlserver(repository);
    // The second service predicts through MLServer only: the fast path's parity with the OIP path.
    svc2 = await startTestService(
      {
        ...ml?.env,
        CAIRN_FOUNDRY_FAST_PATH: "off",
        CAIRN_LLM_URL: `http://127.0.0.1:${llm.port}/v1`,
        CAIRN_LLM_MODEL: "m-local",
      },
      { dataDir: f.svc.service.config.dataDir, tenantSlug: f.tenant.slug },
    );
    const headers = { authorization: `Bearer ${await svc2.token("analyst@models.test", "enterprise")}` };
    const s2 = {
      post: (path: string, body: unknown) =>
        (svc2 as TestService).request(path, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      get: (path: string) => (svc2 as TestService).request(path, { headers }),
    };
    const dep = (await (await s2.get(`/v1/foundry/models/${modelId}/deployment`)).json()) as { status: string };
    expect(dep.status).toBe("active");
    // The new service loads the `deploying` one again on start: active, and it predicts.
    await waitFor(
      "the interrupted deployment to be loaded again",
      async () =>
        ((await (await s2.get(`/v1/foundry/models/${secondRegistryId}/deployment`)).json()) as { status: string })
          .status === "active",
      { timeoutMs: 120_000, everyMs: 250 },
    );
    expect((await s2.post(`/v1/foundry/models/${secondId}/predict`, { rows: rows.slice(0, 1) })).status).toBe(200);
    const res = await predict({ rows: sample }, s2);
    expect(res.status).toBe(200);
    const after = (await res.json()) as Predicted;
    expect(after.served_by).toBe("oip");
    expect(after.predictions).toHaveLength(sample.length);
    after.predictions.forEach((p, i) => {
      const q = before.predictions[i] as Prediction;
      expect(Math.abs(p.score - q.score)).toBeLessThan(1e-6);
      expect(p.label).toBe(q.label);
      expect(p.class).toBe(q.class);
      expect(Object.keys(p).sort()).toEqual(Object.keys(q).sort());
    });

    // Explain through the local OpenAI-compatible model: its text when every claim is stored ...
    const top = (model.feature_importance as { feature: string; importance: number }[])[0] as {
      feature: string;
      importance: number;
    };
    llmText = `The feature \`${top.feature}\` matters most (importance ${top.importance}).`;
    const good = (await (await s2.get(`/v1/foundry/models/${modelId}/explain`)).json()) as Record<string, unknown>;
    expect(good).toMatchObject({ source: "llm", text: llmText, fallback_reason: null });
    // ... and the template when it invents a number or a feature.
    llmText = `The feature \`${top.feature}\` raises the risk by 37.5 points.`;
    const invented = (await (await s2.get(`/v1/foundry/models/${modelId}/explain`)).json()) as Record<string, unknown>;
    expect(invented.source).toBe("template");
    expect(String(invented.fallback_reason)).toContain("37.5");
    llmText = "The feature `shoe_size` matters most.";
    const unknown = (await (await s2.get(`/v1/foundry/models/${modelId}/explain`)).json()) as Record<string, unknown>;
    expect(unknown.source).toBe("template");
    expect(String(unknown.fallback_reason)).toContain("shoe_size");
  }, 240_000);
});

/** Every number in `text` is a stored importance, the winner's metric value, or a percentage of one. */
function expectOnlyStoredNumbers(text: string): void {
  const stored = (model.feature_importance as { feature: string; importance: number }[]).map((x) => x.importance);
  const winner = model.winner as { value: number };
  const allowed = [...stored, winner.value].flatMap((v) => [v, Math.round(v * 10000) / 100]);
  let scrubbed = text;
  const names = (model.feature_importance as { feature: string }[]).map((x) => x.feature);
  for (const n of [...names, "credit-risk"].sort((a, b) => b.length - a.length)) scrubbed = scrubbed.split(n).join(" ");
  const numbers = [...scrubbed.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  expect(numbers.length).toBeGreaterThan(0);
  for (const n of numbers) expect(allowed.some((a) => Math.abs(a - n) < 1e-12)).toBe(true);
}
