/**
 * Foundry tuning end to end on the embedded profile (spec 4.9 "Hyperparameter tuning: Bayesian
 * optimisation, up to 12 trials, 2 in parallel"; issue 16): German credit as a ready dataset,
 * POST /v1/foundry/models/tune (202 at once), the Python lab worker (`lab.worker --once`)
 * running the Optuna study from the service's embedded queue, GET /v1/foundry/models/{id}/tune
 * polled while it runs (status tuning, progress per trial) and when ready (12 trials, at most
 * and at least 2 at a time by the trials' own times, the best params per family); then
 * POST /v1/foundry/models/train with tuning_id: the run records the tuning and the families'
 * records carry the tuned params. Refusals: another tenant 404, bad bodies 422, a dataset not
 * built 409, a tuning not ready 409, a tuning of another target 422.
 *
 * The families (CAIRN_FOUNDRY_TUNE_FAMILIES) and the roster (CAIRN_FOUNDRY_TRAIN_ALGORITHMS) are
 * cut to XGBoost and LightGBM to keep the runs short.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { labWorkerDone, type ModelsFixture, spawnLabWorker, startModelsFixture } from "../foundry-models.ts";
import { LAB_PYTHON } from "../lakehouse.ts";

const FAMILIES = ["XGBoost", "LightGBM"];
let fx: ModelsFixture;
let tuningId = "";

interface Trial {
  number: number;
  algorithm: string;
  params: Record<string, unknown>;
  value: number;
  state: string;
  datetime_start: string;
  datetime_complete: string;
}
interface TuningBody {
  id: string;
  name: string;
  dataset_id: string;
  target_column: string;
  problem_type: string | null;
  status: string;
  progress: { stage: string; done: number; total: number } | null;
  trials_total: number;
  parallel: number;
  trials: Trial[];
  max_concurrency: number | null;
  best: { algorithm: string; params: Record<string, unknown>; metric: string; value: number } | null;
  best_params: Record<string, Record<string, unknown>>;
  error: string | null;
  finished_at: string | null;
}

/** The most [start, end) intervals overlapping at one instant. */
function peakOverlap(spans: [number, number][]): number {
  const events = spans.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]) as [number, number][];
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, step] of events) {
    now += step;
    peak = Math.max(peak, now);
  }
  return peak;
}

/** Runs the lab worker until the queue is empty, reading `path` meanwhile; returns what was read. */
async function whileWorking<T>(path: string): Promise<T[]> {
  const worker = spawnLabWorker(fx.svc, { once: true });
  let finished = false;
  const done = labWorkerDone(worker).finally(() => {
    finished = true;
  });
  const seen: T[] = [];
  while (!finished) {
    const r = await fx.get(path);
    expect(r.status).toBe(200); // polling is how a caller follows a run: never 409 while running
    seen.push((await r.json()) as T);
    await Bun.sleep(100);
  }
  expect(await done).toContain('"jobs_run": 1');
  return seen;
}

beforeAll(async () => {
  if (!existsSync(LAB_PYTHON)) return;
  fx = (await startModelsFixture({
    CAIRN_FOUNDRY_TUNE_FAMILIES: FAMILIES.join(","),
    CAIRN_FOUNDRY_TRAIN_ALGORITHMS: FAMILIES.join(","),
    // The polls below would pass the spec's per-tier request limits (8.1) on a slow machine.
    CAIRN_RATE_LIMIT_SCALE: "100",
  })) as ModelsFixture;
}, 240_000);

afterAll(async () => {
  await fx?.close();
});

describe.if(existsSync(LAB_PYTHON))("foundry tuning", () => {
  test("tune German credit: 12 trials 2 at a time, progress while running, best params per family", async () => {
    const res = await fx.post("/v1/foundry/models/tune", {
      dataset_id: fx.datasetId,
      name: "credit tuning",
      target_column: "class",
    });
    expect(res.status).toBe(202);
    const started = (await res.json()) as { id: string; name: string; status: string };
    expect(started).toMatchObject({ name: "credit tuning", status: "queued" });
    tuningId = started.id;
    const queued = (await (await fx.get(`/v1/foundry/models/${tuningId}/tune`)).json()) as TuningBody;
    expect(queued).toMatchObject({ status: "queued", trials_total: 12, parallel: 2, trials: [], best: null });

    // While the study runs, a read answers 200 with status tuning and the lab's progress.
    const seen = await whileWorking<TuningBody>(`/v1/foundry/models/${tuningId}/tune`);
    const tuning = seen.filter((s) => s.status === "tuning");
    expect(tuning.length).toBeGreaterThan(0);
    expect(tuning.at(-1)?.progress).toMatchObject({ stage: "tuning", total: 12 });

    const x = (await (await fx.get(`/v1/foundry/models/${tuningId}/tune`)).json()) as TuningBody;
    expect(x.status).toBe("ready");
    expect(x.error).toBeNull();
    expect(x.progress).toBeNull();
    expect(x.finished_at).not.toBeNull();
    expect(x).toMatchObject({ dataset_id: fx.datasetId, target_column: "class", problem_type: "classification" });
    // 12 trials; never more than 2 at once and 2 did run at once, by the trials' own times.
    expect(x.trials.map((t) => t.number)).toEqual([...Array(12).keys()]);
    expect(x.trials.every((t) => t.state === "COMPLETE")).toBe(true);
    const spans = x.trials.map((t) => [Date.parse(t.datetime_start), Date.parse(t.datetime_complete)]) as [
      number,
      number,
    ][];
    expect(peakOverlap(spans)).toBe(2);
    expect(x.max_concurrency).toBe(2);
    expect(x.parallel).toBe(2);
    expect(new Set(x.trials.map((t) => t.algorithm))).toEqual(new Set(FAMILIES));
    // The best trial and the best params of each family searched.
    const best = x.best as NonNullable<TuningBody["best"]>;
    expect(best.metric).toBe("val_accuracy");
    expect(best.value).toBe(Math.max(...x.trials.map((t) => t.value)));
    expect(best.value).toBeGreaterThan(0.6);
    expect(Object.keys(best.params).length).toBeGreaterThan(0);
    expect(Object.keys(x.best_params).sort()).toEqual([...FAMILIES].sort());
    expect(x.best_params[best.algorithm]).toEqual(best.params);
  }, 300_000);

  test("a train run with tuning_id uses the best params per family and says so", async () => {
    const x = (await (await fx.get(`/v1/foundry/models/${tuningId}/tune`)).json()) as TuningBody;
    expect(x.status).toBe("ready");
    const res = await fx.post("/v1/foundry/models/train", {
      dataset_id: fx.datasetId,
      name: "credit tuned",
      target_column: "class",
      tuning_id: tuningId,
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const queued = (await (await fx.get(`/v1/foundry/models/${id}`)).json()) as Record<string, unknown>;
    expect(queued).toMatchObject({ status: "queued", tuning_id: tuningId, tuned_params: x.best_params });

    await whileWorking<unknown>(`/v1/foundry/models/${id}`);
    const m = (await (await fx.get(`/v1/foundry/models/${id}`)).json()) as {
      status: string;
      error: string | null;
      tuning_id: string;
      tuned_params: Record<string, unknown>;
      algorithms: { algorithm: string; status: string; params?: Record<string, unknown> }[];
    };
    expect(m.error).toBeNull();
    expect(m.status).toBe("ready");
    expect(m.tuning_id).toBe(tuningId);
    expect(m.tuned_params).toEqual(x.best_params);
    // Each family's record shows the params it trained with: the tuning winner's first.
    const winner = m.algorithms.find((a) => a.algorithm === x.best?.algorithm);
    expect(winner?.status).toBe("trained");
    expect(winner?.params).toEqual(x.best?.params as Record<string, unknown>);
    for (const a of m.algorithms) expect(a.params).toEqual(x.best_params[a.algorithm] as Record<string, unknown>);
  }, 300_000);

  test("refusals: another tenant 404, bad bodies 422, a dataset not built 409, a tuning not ready 409", async () => {
    const body = { dataset_id: fx.datasetId, name: "t", target_column: "class" };
    const other = await fx.svc.addTenant();
    const theirs = { authorization: `Bearer ${await other.token("b@tuning.test")}` };
    const foreign = await fx.svc.request(`/v1/foundry/models/${tuningId}/tune`, { headers: theirs });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(await foreign.json())).toContain(tuningId);
    expect((await fx.get(`/v1/foundry/models/${crypto.randomUUID()}/tune`)).status).toBe(404);

    for (const bad of [
      { ...body, name: undefined },
      { ...body, dataset_id: "not-a-uuid" },
      { ...body, problem_type: "timeseries" },
      { dataset_id: fx.datasetId, name: "t" },
    ]) {
      const r = await fx.post("/v1/foundry/models/tune", bad);
      expect(r.status).toBe(422);
      expect(Array.isArray(((await r.json()) as { detail: unknown }).detail)).toBe(true);
    }
    const unknownTarget = await fx.post("/v1/foundry/models/tune", { ...body, target_column: "nope" });
    expect(unknownTarget.status).toBe(422);
    expect(((await unknownTarget.json()) as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual([
      "body",
      "target_column",
    ]);
    expect((await fx.post("/v1/foundry/models/tune", { ...body, dataset_id: crypto.randomUUID() })).status).toBe(404);

    const draft = (await (
      await fx.post("/v1/foundry/datasets", { name: "credit draft", source_tables: [{ table: "german_credit" }] })
    ).json()) as { id: string };
    const notBuilt = await fx.post("/v1/foundry/models/tune", { ...body, dataset_id: draft.id });
    expect(notBuilt.status).toBe(409);
    expect(JSON.stringify(await notBuilt.json())).toContain("not ready");

    // Train with a tuning_id: unknown 404, one still queued 409, one of another target 422.
    const train = { ...body, name: "tuned run" };
    expect((await fx.post("/v1/foundry/models/train", { ...train, tuning_id: crypto.randomUUID() })).status).toBe(404);
    const pending = (await (await fx.post("/v1/foundry/models/tune", { ...body, name: "pending" })).json()) as {
      id: string;
    };
    const early = await fx.post("/v1/foundry/models/train", { ...train, tuning_id: pending.id });
    expect(early.status).toBe(409);
    expect(JSON.stringify(await early.json())).toContain("queued");
    const otherTarget = await fx.post("/v1/foundry/models/train", {
      ...train,
      target_column: "duration",
      tuning_id: tuningId,
    });
    expect(otherTarget.status).toBe(422);
    const detail = ((await otherTarget.json()) as { detail: { loc: string[]; msg: string }[] }).detail;
    expect(detail[0]?.loc).toEqual(["body", "tuning_id"]);
    expect(detail[0]?.msg).toContain("tuned target 'class'");
  }, 120_000);
});
