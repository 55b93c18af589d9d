/**
 * The model registry and prediction log (adapters/controlplane/foundry-serving-store.ts) on
 * SQLite and Postgres: a deployment round-trips, a redeploy of the same model and name is the
 * next version, a name taken by another model (or another name for the model) is refused, every
 * read is scoped to the tenant, conditional updates, and the log keeps only the newest N entries
 * per deployment, newest first.
 */
import { beforeAll, expect, test } from "bun:test";
import { SqlDeploymentStore } from "../../adapters/controlplane/foundry-serving-store.ts";
import type { NewDeployment } from "../../domain/foundry/serving/ports.ts";
import { forEachControlPlane } from "./foundry-control-plane.ts";

const dep = (tenant: string, model: string, name: string): NewDeployment => ({
  id: crypto.randomUUID(),
  tenant_id: tenant,
  model_id: model,
  model_name: name,
  artifact_sha256: "a".repeat(64),
  artifact_path: `/objects/models/${tenant}/${"a".repeat(64)}.joblib`,
  metrics: { val_accuracy: 0.765 },
  problem_type: "classification",
});

forEachControlPlane("foundry serving store", ["tenant-a", "tenant-b"], (db) => {
  let store: SqlDeploymentStore;
  beforeAll(() => {
    store = new SqlDeploymentStore(db());
  });

  test("deploy, redeploy (version + 1), names taken, tenant scope, conditional updates", async () => {
    const modelA = crypto.randomUUID();
    const first = await store.upsertDeployment(dep("tenant-a", modelA, "credit-risk"));
    expect(first).toMatchObject({
      model_id: modelA,
      model_name: "credit-risk",
      version: 1,
      status: "deploying",
      threshold: 0.5,
      threshold_metric: null,
      metrics: { val_accuracy: 0.765 },
      error: null,
    });
    const id = first?.id as string;
    expect(await store.getDeployment("tenant-b", id)).toBeNull();
    expect(await store.getByModel("tenant-b", modelA)).toBeNull();
    expect((await store.getByName("tenant-a", "credit-risk"))?.id).toBe(id);

    const active = await store.updateDeployment("tenant-a", id, { status: "active" }, ["deploying"]);
    expect(active?.status).toBe("active");
    expect(await store.updateDeployment("tenant-a", id, { status: "failed" }, ["deploying"])).toBeNull();
    const t = await store.updateDeployment("tenant-a", id, { threshold: 0.3, threshold_metric: "recall" });
    expect(t).toMatchObject({ threshold: 0.3, threshold_metric: "recall", status: "active" });

    const again = await store.upsertDeployment(dep("tenant-a", modelA, "credit-risk"));
    expect(again).toMatchObject({ id, version: 2, status: "deploying", threshold: 0.3 });
    // Another model under the name, or the model under another name: refused.
    expect(await store.upsertDeployment(dep("tenant-a", crypto.randomUUID(), "credit-risk"))).toBeNull();
    expect(await store.upsertDeployment(dep("tenant-a", modelA, "other-name"))).toBeNull();
    // The same name in another tenant is that tenant's own.
    expect(await store.upsertDeployment(dep("tenant-b", crypto.randomUUID(), "credit-risk"))).toMatchObject({
      version: 1,
    });
    const deploying = await store.listByStatus("deploying");
    expect(deploying.map((d) => d.tenant_id).sort()).toEqual(["tenant-a", "tenant-b"]);
  });

  test("the prediction log keeps the newest entries per deployment, newest first", async () => {
    const a = crypto.randomUUID();
    const b = crypto.randomUUID();
    const entries = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({
        inputs: { age: from + i, job: "A173" },
        output: { label: 1, score: 0.5 },
        version: 1,
        at: "2026-11-25T20:00:00.000Z",
      }));
    await store.appendPredictions(a, entries(250, 0), 300);
    await store.appendPredictions(b, entries(5, 1000), 300);
    await store.appendPredictions(a, entries(250, 250), 300);
    const recent = await store.recentPredictions(a, 1000);
    expect(recent).toHaveLength(300);
    expect(recent[0]?.inputs).toEqual({ age: 499, job: "A173" });
    expect(recent.at(-1)?.inputs).toEqual({ age: 200, job: "A173" });
    expect(recent[0]?.output).toEqual({ label: 1, score: 0.5 });
    expect((await store.recentPredictions(a, 10)).map((e) => e.inputs.age)).toEqual([
      499, 498, 497, 496, 495, 494, 493, 492, 491, 490,
    ]);
    expect(await store.recentPredictions(b, 1000)).toHaveLength(5);
  });
});
