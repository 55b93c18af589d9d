/**
 * The model-run store (adapters/controlplane/foundry-model-store.ts) on SQLite and Postgres:
 * migrations apply once, records round-trip with their JSON fields, every read is scoped to the
 * tenant, lists are oldest first, and a conditional update applies only while the record is in
 * one of the given states (how two readers of one finished job never both write it).
 */
import { beforeAll, expect, test } from "bun:test";
import { SqlModelStore } from "../../adapters/controlplane/foundry-model-store.ts";
import type { NewModel } from "../../domain/foundry/models/ports.ts";
import { forEachControlPlane } from "./foundry-control-plane.ts";

function newModel(tenant: string, name: string): NewModel {
  const id = crypto.randomUUID();
  return {
    id,
    tenant_id: tenant,
    name,
    dataset_id: crypto.randomUUID(),
    table_name: "foundry_credit",
    target_column: "class",
    feature_columns: ["age", "amount"],
    problem_type: null,
    job_id: id,
  };
}

forEachControlPlane("foundry model store", ["tenant-a", "tenant-b", "tenant-c", "tenant-d"], (db) => {
  let store: SqlModelStore;
  beforeAll(() => {
    store = new SqlModelStore(db());
  });

  test("a record round-trips: queued, its lists and null JSON fields", async () => {
    const m = newModel("tenant-a", "credit risk");
    const created = await store.createModel(m);
    expect(created).toMatchObject({
      id: m.id,
      tenant_id: "tenant-a",
      name: "credit risk",
      status: "queued",
      feature_columns: ["age", "amount"],
      problem_type: null,
      progress: null,
      result: null,
      error: null,
      finished_at: null,
    });
    expect(await store.getModel("tenant-a", m.id)).toEqual(created);
  });

  test("another tenant reaches nothing by id, and lists only its own, oldest first", async () => {
    const first = await store.createModel(newModel("tenant-b", "first"));
    await Bun.sleep(5);
    const second = await store.createModel(newModel("tenant-b", "second"));
    expect(await store.getModel("tenant-c", first.id)).toBeNull();
    expect(await store.updateModel("tenant-c", first.id, { status: "failed" })).toBeNull();
    expect((await store.getModel("tenant-b", first.id))?.status).toBe("queued");
    expect((await store.listModels("tenant-b")).map((x) => x.name)).toEqual(["first", "second"]);
    expect(await store.listModels("tenant-c")).toEqual([]);
    expect(second.created_at >= first.created_at).toBe(true);
  });

  test("updates store progress and the lab's result as JSON, and apply only from the given states", async () => {
    const m = await store.createModel(newModel("tenant-d", "run"));
    const training = await store.updateModel(
      "tenant-d",
      m.id,
      { status: "training", progress: { stage: "training", done: 1, total: 3 } },
      ["queued", "training"],
    );
    expect(training).toMatchObject({ status: "training", progress: { stage: "training", done: 1, total: 3 } });
    const result = { status: "succeeded", winner: { algorithm: "XGBoost", value: 0.8 }, shap: { values: [] } };
    const ready = await store.updateModel(
      "tenant-d",
      m.id,
      {
        status: "ready",
        progress: null,
        result,
        artifact_sha256: "a".repeat(64),
        artifact_path: "s3://bucket/models/tenant-d/a.joblib",
        finished_at: "2026-11-25T20:00:00.000Z",
      },
      ["queued", "training"],
    );
    expect(ready).toMatchObject({ status: "ready", progress: null, result, artifact_sha256: "a".repeat(64) });
    expect(ready?.finished_at).toBe("2026-11-25T20:00:00.000Z");
    // A second reader of the same finished job: the record has moved on, nothing is written.
    const late = await store.updateModel("tenant-d", m.id, { status: "failed", error: "late" }, ["queued", "training"]);
    expect(late).toBeNull();
    expect(await store.getModel("tenant-d", m.id)).toMatchObject({ status: "ready", error: null });
  });
});
