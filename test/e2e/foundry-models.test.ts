/**
 * Foundry model training end to end on the embedded profile (spec 2.8, 4.9; issue 16): the
 * real lab gateway, German credit (fixtures/ml/german_credit.csv, 700 good : 300 bad) imported
 * as a custom table, a dataset built from it, POST /v1/foundry/models/train (202 at once), the
 * Python lab worker (`lab.worker --queue foundry-train --once`) consuming the service's
 * embedded queue, then GET /v1/foundry/models/{id}: ready, classification, the winner by
 * val_accuracy, class_weight applied (2.33:1 < 3:1), the artifact with its sha256 in the
 * local object store, SHAP top 20. Refusals before any work: another tenant's dataset 404,
 * a dataset not built 409, an unknown target or feature 422; a second tenant sees no models.
 *
 * The roster is cut to three algorithms (CAIRN_FOUNDRY_TRAIN_ALGORITHMS) to keep the run short.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GERMAN_CREDIT_COLUMNS } from "../../cli/foundry-demo.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";
import { labWorkerDone, type ModelsFixture, spawnLabWorker, startModelsFixture } from "../foundry-models.ts";
import type { TestService } from "../harness.ts";
import { LAB_PYTHON } from "../lakehouse.ts";
import { waitFor } from "../wait.ts";

const ALGORITHMS = ["LogisticRegression", "LightGBM", "XGBoost"];
let fx: ModelsFixture | null = null;
let svc: TestService;
let a: TenantRef;
let headers: Record<string, string>;
let datasetId: string;
let draftId: string;

const post = (path: string, body: unknown, h = headers) =>
  svc.request(path, {
    method: "POST",
    headers: { ...h, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const get = (path: string, h = headers) => svc.request(path, { headers: h });

interface ModelBody {
  status: string;
  error: string | null;
  problem_type: string;
  dataset_id: string;
  imbalance_ratio: number;
  class_weight_applied: boolean;
  smote_applied: boolean;
  algorithms: { algorithm: string; status: string; metrics: Record<string, number>; class_weight: unknown }[];
  winner: { algorithm: string; metric: string; value: number };
  metrics: Record<string, number>;
  feature_importance: unknown[];
  result: Record<string, unknown>;
  progress: unknown;
  artifact: { sha256: string; path: string };
}

/** Runs the lab worker on the service's control-plane file until the queue is empty. */
const runLabWorker = () => labWorkerDone(spawnLabWorker(svc, { once: true }));

beforeAll(async () => {
  fx = await startModelsFixture({ CAIRN_FOUNDRY_TRAIN_ALGORITHMS: ALGORITHMS.join(",") });
  if (!fx) return;
  ({ svc, tenant: a, headers, datasetId } = fx);
  draftId = (
    (await (
      await post("/v1/foundry/datasets", { name: "credit draft", source_tables: [{ table: "german_credit" }] })
    ).json()) as {
      id: string;
    }
  ).id;
}, 180_000);

afterAll(async () => {
  await fx?.close();
});

describe.if(existsSync(LAB_PYTHON))("foundry models", () => {
  test("train on German credit through the lab worker: ready, winner by val_accuracy, class_weight, SHAP top 20", async () => {
    const res = await post("/v1/foundry/models/train", {
      dataset_id: datasetId,
      name: "credit risk",
      target_column: "class",
    });
    expect(res.status).toBe(202);
    const started = (await res.json()) as { id: string; name: string; status: string };
    expect(started).toMatchObject({ name: "credit risk", status: "queued" });
    const before = (await (await get(`/v1/foundry/models/${started.id}`)).json()) as Record<string, unknown>;
    expect(before.status).toBe("queued");
    expect((await get(`/v1/foundry/models/${started.id}/shap`)).status).toBe(409);

    // While the lab trains, a read shows status training and the lab's progress ({stage, done, total}).
    const worker = runLabWorker();
    let finished = false;
    void worker.finally(() => {
      finished = true;
    });
    const seen: { status: string; progress: { stage?: string; done?: number; total?: number } | null }[] = [];
    while (!finished) {
      const r = (await (await get(`/v1/foundry/models/${started.id}`)).json()) as (typeof seen)[number];
      seen.push({ status: r.status, progress: r.progress });
      await Bun.sleep(300); // well inside the tier's per-minute request limit, however long the run takes
    }
    expect(await worker).toContain('"jobs_run": 1');
    const training = seen.filter((s) => s.status === "training");
    expect(training.length).toBeGreaterThan(0);
    expect(training.at(-1)?.progress).toMatchObject({ stage: "training", total: ALGORITHMS.length });

    const got = await get(`/v1/foundry/models/${started.id}`);
    expect(got.status).toBe(200);
    const m = (await got.json()) as ModelBody;
    expect(m.status).toBe("ready");
    expect(m.error).toBeNull();
    expect(m.problem_type).toBe("classification");
    expect(m.dataset_id).toBe(datasetId);
    // 700 good : 300 bad -> 2.33:1, below 3:1: class_weight='balanced', no SMOTE.
    expect(m.imbalance_ratio).toBeCloseTo(700 / 300, 3); // the lab rounds to 4 places
    expect(m.class_weight_applied).toBe(true);
    expect(m.smote_applied).toBe(false);
    const algorithms = m.algorithms;
    expect(algorithms.map((x) => x.algorithm).sort()).toEqual([...ALGORITHMS].sort());
    const trained = algorithms.filter((x) => x.status === "trained");
    expect(trained.length).toBeGreaterThanOrEqual(2);
    const best = Math.max(...trained.map((x) => x.metrics.val_accuracy as number));
    expect(m.winner).toMatchObject({ metric: "val_accuracy", value: best });
    expect(trained.find((x) => x.algorithm === m.winner.algorithm)?.metrics.val_accuracy).toBe(best);
    expect(best).toBeGreaterThan(0.7); // above the majority class share on the validation split
    expect(m.metrics.val_accuracy).toBe(best);
    expect(m.feature_importance.length).toBeGreaterThan(0);
    expect(m.result.drift_baseline).toBeTruthy();
    expect(m.progress).toBeNull();
    // The artifact the lab wrote into the local object store, under models/<tenant>/, and its hash.
    expect(m.artifact.sha256).toMatch(/^[0-9a-f]{64}$/);
    const objects = svc.service.config.objectStore;
    if (objects.kind !== "local") throw new Error("the embedded profile has a local object store");
    expect(m.artifact.path.startsWith(join(objects.dir, "models", a.tenantId))).toBe(true);
    expect(createHash("sha256").update(readFileSync(m.artifact.path)).digest("hex")).toBe(m.artifact.sha256);
    expect(JSON.stringify(m.result)).not.toContain("base64");

    const shapRes = await get(`/v1/foundry/models/${started.id}/shap`);
    expect(shapRes.status).toBe(200);
    const shap = (await shapRes.json()) as { algorithm: string; values: { feature: string; mean_abs_shap: number }[] };
    expect(shap.algorithm).toBe(m.winner.algorithm);
    // 20 features in German credit: all of them, largest first, each an input column.
    expect(shap.values.length).toBe(20);
    const features = GERMAN_CREDIT_COLUMNS.filter((c) => c !== "class");
    for (const v of shap.values) expect(features).toContain(v.feature);
    const values = shap.values.map((v) => v.mean_abs_shap);
    expect(values).toEqual([...values].sort((x, y) => y - x));

    const list = (await (await get("/v1/foundry/models")).json()) as { models: Record<string, unknown>[] };
    expect(list.models.find((x) => x.id === started.id)).toMatchObject({ status: "ready", name: "credit risk" });
  }, 300_000);

  test("a target the lab cannot train on (one class) is refused with 422 before anything is queued", async () => {
    // Only the good credits: the target has one class, which the lab's checks refuse.
    const created = (await (
      await post("/v1/foundry/datasets", {
        name: "good credits",
        source_tables: [{ table: "german_credit" }],
        filters: [{ column: "class", op: "=", value: "1" }],
      })
    ).json()) as { id: string };
    expect((await post(`/v1/foundry/datasets/${created.id}/build`, {})).status).toBe(200);
    await waitFor(
      "the one-class dataset to build",
      async () => {
        const { datasets } = (await (await get("/v1/foundry/datasets")).json()) as {
          datasets: { id: string; status: string }[];
        };
        return datasets.find((x) => x.id === created.id)?.status === "ready";
      },
      { timeoutMs: 60_000, everyMs: 100 },
    );
    const before = ((await (await get("/v1/foundry/models")).json()) as { models: unknown[] }).models.length;
    const res = await post("/v1/foundry/models/train", {
      dataset_id: created.id,
      name: "one class",
      target_column: "class",
      problem_type: "classification",
    });
    expect(res.status).toBe(422);
    const detail = ((await res.json()) as { detail: { loc: string[]; msg: string }[] }).detail;
    expect(detail[0]?.loc).toEqual(["body", "target_column"]);
    expect(detail[0]?.msg).toContain("has a single class");
    // Nothing was recorded or queued.
    expect(((await (await get("/v1/foundry/models")).json()) as { models: unknown[] }).models.length).toBe(before);
  }, 120_000);

  test("refused before any work: another tenant's dataset 404, a dataset not built 409, unknown columns 422", async () => {
    const other = await svc.addTenant();
    const otherHeaders = { authorization: `Bearer ${await other.token("b@models.test")}` };
    const body = { dataset_id: datasetId, name: "x", target_column: "class" };
    const foreign = await post("/v1/foundry/models/train", body, otherHeaders);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(await foreign.json())).toContain(datasetId);

    const draft = await post("/v1/foundry/models/train", { ...body, dataset_id: draftId });
    expect(draft.status).toBe(409);
    expect(JSON.stringify(await draft.json())).toContain("not ready");

    const badTarget = await post("/v1/foundry/models/train", { ...body, target_column: "no_such_column" });
    expect(badTarget.status).toBe(422);
    const detail = ((await badTarget.json()) as { detail: { loc: string[]; msg: string }[] }).detail;
    expect(detail[0]?.loc).toEqual(["body", "target_column"]);
    expect(detail[0]?.msg).toContain("no_such_column");

    const badFeature = await post("/v1/foundry/models/train", { ...body, feature_columns: ["age", "nope"] });
    expect(badFeature.status).toBe(422);
    expect(((await badFeature.json()) as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual([
      "body",
      "feature_columns",
      "1",
    ]);

    const later = await post("/v1/foundry/models/train", { ...body, problem_type: "timeseries" });
    expect(later.status).toBe(422);

    // Nothing was queued or stored for the refusals; the second tenant sees no models at all.
    const names = ((await (await get("/v1/foundry/models")).json()) as { models: { name: string }[] }).models.map(
      (x) => x.name,
    );
    expect(names).not.toContain("x");
    const theirs = (await (await get("/v1/foundry/models", otherHeaders)).json()) as { models: unknown[] };
    expect(theirs.models).toEqual([]);
    const mine = ((await (await get("/v1/foundry/models")).json()) as { models: { id: string }[] }).models;
    for (const x of mine) expect((await get(`/v1/foundry/models/${x.id}`, otherHeaders)).status).toBe(404);
  }, 60_000);
});
