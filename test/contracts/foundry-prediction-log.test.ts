/**
 * The prediction log's writer (domain/foundry/serving/prediction-log.ts) over the real SQLite
 * registry store: appends answer before the database is written, a burst from many requests is
 * one store append per deployment, a flush makes every entry visible in order, entries past the
 * bound are never written, a full queue makes the appender wait for the write (nothing lost),
 * and a failing write loses only its own entries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { FOUNDRY_MIGRATIONS } from "../../adapters/controlplane/foundry-migrations.ts";
import { SqlDeploymentStore } from "../../adapters/controlplane/foundry-serving-store.ts";
import { SqlControlPlaneStore } from "../../adapters/controlplane/store.ts";
import { SqliteClient } from "../../adapters/sql/index.ts";
import type { PredictionLogEntry } from "../../domain/foundry/serving/model.ts";
import { PredictionLogWriter } from "../../domain/foundry/serving/prediction-log.ts";

let dir: string;
let sql: SqliteClient;
let store: SqlDeploymentStore;
const appends: { deploymentId: string; entries: number }[] = [];
let failNext = false;
const counting = {
  appendPredictions: async (deploymentId: string, entries: PredictionLogEntry[], keep: number) => {
    appends.push({ deploymentId, entries: entries.length });
    if (failNext) {
      failNext = false;
      throw new Error("disk full");
    }
    await store.appendPredictions(deploymentId, entries, keep);
  },
};

const entry = (i: number): PredictionLogEntry => ({
  inputs: { age: i },
  output: { score: i / 100 },
  version: 1,
  at: new Date(1_700_000_000_000 + i).toISOString(),
});

async function newDeployment(name: string): Promise<string> {
  const id = crypto.randomUUID();
  await store.upsertDeployment({
    id,
    tenant_id: "tenant-a",
    model_id: crypto.randomUUID(),
    model_name: name,
    artifact_sha256: "a".repeat(64),
    artifact_path: "/objects/a.joblib",
    metrics: {},
    problem_type: "classification",
  });
  return id;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-plog-"));
  sql = new SqliteClient(join(dir, "cp.sqlite"));
  const controlPlane = new SqlControlPlaneStore(sql);
  await controlPlane.migrate(FOUNDRY_MIGRATIONS);
  await controlPlane.createTenant({ tenant_id: "tenant-a", slug: "a", display_name: "a", tier: "pilot", region: "eu" });
  store = new SqlDeploymentStore(sql);
});

afterAll(async () => {
  await sql.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("prediction log writer", () => {
  test("appends answer at once; a burst becomes one write per deployment; flush shows all, in order", async () => {
    const a = await newDeployment("burst-a");
    const b = await newDeployment("burst-b");
    appends.length = 0;
    const log = new PredictionLogWriter(
      counting,
      { keep: 100, maxPending: 1000, delayMs: 60_000 },
      pino({ level: "silent" }),
    );
    for (let i = 0; i < 10; i++) await log.append(i % 2 ? b : a, [entry(2 * i), entry(2 * i + 1)]);
    expect(appends).toEqual([]);
    expect(await store.recentPredictions(a, 100)).toEqual([]);
    expect(log.waiting).toBe(20);
    await log.flush();
    expect(appends).toEqual([
      { deploymentId: a, entries: 10 },
      { deploymentId: b, entries: 10 },
    ]);
    const newestFirst = (await store.recentPredictions(a, 100)).map((e) => e.inputs.age);
    expect(newestFirst).toEqual([17, 16, 13, 12, 9, 8, 5, 4, 1, 0]);
    expect(log.waiting).toBe(0);
  });

  test("the delay flushes by itself", async () => {
    const a = await newDeployment("timer");
    const log = new PredictionLogWriter(
      counting,
      { keep: 100, maxPending: 1000, delayMs: 5 },
      pino({ level: "silent" }),
    );
    await log.append(a, [entry(1)]);
    const deadline = Date.now() + 5_000;
    while ((await store.recentPredictions(a, 10)).length === 0 && Date.now() < deadline) await Bun.sleep(5);
    expect((await store.recentPredictions(a, 10)).map((e) => e.inputs.age)).toEqual([1]);
  });

  test("entries past the bound are never written; the store keeps the newest", async () => {
    const a = await newDeployment("bound");
    appends.length = 0;
    const log = new PredictionLogWriter(
      counting,
      { keep: 5, maxPending: 1000, delayMs: 60_000 },
      pino({ level: "silent" }),
    );
    await log.append(a, [1, 2, 3, 4].map(entry));
    await log.append(a, [5, 6, 7, 8].map(entry));
    expect(log.waiting).toBe(5);
    await log.flush();
    expect(appends).toEqual([{ deploymentId: a, entries: 5 }]);
    expect((await store.recentPredictions(a, 10)).map((e) => e.inputs.age)).toEqual([8, 7, 6, 5, 4]);
  });

  test("a full queue makes the appender wait for the write; nothing is dropped", async () => {
    const a = await newDeployment("full");
    appends.length = 0;
    const log = new PredictionLogWriter(
      counting,
      { keep: 100, maxPending: 6, delayMs: 60_000 },
      pino({ level: "silent" }),
    );
    await log.append(a, [1, 2, 3].map(entry));
    expect(appends).toEqual([]);
    await log.append(a, [4, 5, 6].map(entry)); // reaches maxPending: written before it resolves
    expect(appends).toEqual([{ deploymentId: a, entries: 6 }]);
    expect((await store.recentPredictions(a, 10)).length).toBe(6);
  });

  test("a failed write loses only its own entries; the next flush writes", async () => {
    const a = await newDeployment("fail");
    const log = new PredictionLogWriter(
      counting,
      { keep: 100, maxPending: 1000, delayMs: 60_000 },
      pino({ level: "silent" }),
    );
    await log.append(a, [entry(1)]);
    failNext = true;
    await log.flush();
    await log.append(a, [entry(2)]);
    await log.flush();
    expect((await store.recentPredictions(a, 10)).map((e) => e.inputs.age)).toEqual([2]);
  });
});
