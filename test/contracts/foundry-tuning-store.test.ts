/**
 * The tuning-experiment store (adapters/controlplane/foundry-tuning-store.ts) on SQLite and
 * Postgres: the migration applies once, records round-trip with their JSON fields, every read
 * is scoped to the tenant, a conditional update applies only while the record is in one of the
 * given states; and a model run keeps the tuning it used and the params that came with it.
 */
import { beforeAll, expect, test } from "bun:test";
import { SqlModelStore } from "../../adapters/controlplane/foundry-model-store.ts";
import { SqlTuningStore } from "../../adapters/controlplane/foundry-tuning-store.ts";
import type { NewTuning } from "../../domain/foundry/models/tuning-model.ts";
import { forEachControlPlane } from "./foundry-control-plane.ts";

function newTuning(tenant: string, name: string): NewTuning {
  const id = crypto.randomUUID();
  return {
    id,
    tenant_id: tenant,
    name,
    dataset_id: crypto.randomUUID(),
    table_name: "foundry_credit",
    target_column: "class",
    feature_columns: ["age", "amount"],
    problem_type: "classification",
    job_id: id,
  };
}

forEachControlPlane("foundry tuning store", ["tenant-a", "tenant-b"], (db) => {
  let store: SqlTuningStore;
  beforeAll(() => {
    store = new SqlTuningStore(db());
  });

  test("a record round-trips queued; another tenant reaches nothing by id", async () => {
    const x = newTuning("tenant-a", "credit tuning");
    const created = await store.createTuning(x);
    expect(created).toMatchObject({
      id: x.id,
      tenant_id: "tenant-a",
      name: "credit tuning",
      status: "queued",
      feature_columns: ["age", "amount"],
      problem_type: "classification",
      progress: null,
      result: null,
      error: null,
      finished_at: null,
    });
    expect(await store.getTuning("tenant-a", x.id)).toEqual(created);
    expect(await store.getTuning("tenant-b", x.id)).toBeNull();
    expect(await store.updateTuning("tenant-b", x.id, { status: "failed" })).toBeNull();
    expect((await store.getTuning("tenant-a", x.id))?.status).toBe("queued");
  });

  test("progress and the study's result are JSON; updates apply only from the given states", async () => {
    const x = await store.createTuning(newTuning("tenant-a", "study"));
    const progress = { stage: "tuning", done: 3, total: 12, trial: { number: 2, value: 0.75 }, best: null };
    const running = await store.updateTuning("tenant-a", x.id, { status: "tuning", progress }, ["queued", "tuning"]);
    expect(running).toMatchObject({ status: "tuning", progress });
    const result = {
      status: "succeeded",
      best: { algorithm: "XGBoost", params: { max_depth: 4, learning_rate: 0.05 }, value: 0.78 },
      best_params: { XGBoost: { max_depth: 4, learning_rate: 0.05 }, LightGBM: { num_leaves: 31 } },
      trials: [{ number: 0, algorithm: "XGBoost", value: 0.78 }],
    };
    const ready = await store.updateTuning(
      "tenant-a",
      x.id,
      { status: "ready", progress: null, result, finished_at: "2026-11-25T20:00:00.000Z" },
      ["queued", "tuning"],
    );
    expect(ready).toMatchObject({ status: "ready", progress: null, result, finished_at: "2026-11-25T20:00:00.000Z" });
    // A second reader of the same finished job: the record has moved on, nothing is written.
    expect(await store.updateTuning("tenant-a", x.id, { status: "failed", error: "late" }, ["queued", "tuning"])).toBe(
      null,
    );
    expect(await store.getTuning("tenant-a", x.id)).toMatchObject({ status: "ready", error: null });
  });

  test("a model run keeps the tuning it used and the params per family (null without one)", async () => {
    const models = new SqlModelStore(db());
    const base = {
      tenant_id: "tenant-b",
      name: "tuned",
      dataset_id: crypto.randomUUID(),
      table_name: "foundry_credit",
      target_column: "class",
      feature_columns: [],
      problem_type: null,
    };
    const tuned = crypto.randomUUID();
    const params = { XGBoost: { max_depth: 4 }, LightGBM: { num_leaves: 12, subsample: 0.8 } };
    const withTuning = await models.createModel({
      ...base,
      id: tuned,
      job_id: tuned,
      tuning_id: "t-1",
      tuned_params: params,
    });
    expect(withTuning).toMatchObject({ tuning_id: "t-1", tuned_params: params, status: "queued" });
    const plain = crypto.randomUUID();
    expect(await models.createModel({ ...base, id: plain, job_id: plain })).toMatchObject({
      tuning_id: null,
      tuned_params: null,
    });
  });
});
