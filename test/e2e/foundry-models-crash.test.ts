/**
 * A lab worker killed in the middle of a training run (issue 16, "Jobs and faults"): the run is
 * never left "training". A run is tried twice (TRAIN_ATTEMPTS): when its worker dies, the next
 * worker to start claims the job once its lease has expired and trains it again from the start
 * (a resumed run, ready); when the second worker dies too, the next worker fails the job with the
 * queue's lease-expired reason and the model reads failed with it. The worker is killed with
 * SIGKILL to its process group, the algorithm processes it spawned included.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { FOUNDRY_TRAIN_QUEUE, TRAIN_ATTEMPTS } from "../../domain/foundry/models/lab-job.ts";
import {
  killLabWorker,
  labWorkerDone,
  type ModelsFixture,
  spawnLabWorker,
  startModelsFixture,
} from "../foundry-models.ts";
import { LAB_PYTHON } from "../lakehouse.ts";
import { waitFor } from "../wait.ts";

const LEASE_MS = 1_000;
let fx: ModelsFixture | null = null;

beforeAll(async () => {
  fx = await startModelsFixture({ CAIRN_FOUNDRY_TRAIN_ALGORITHMS: "LogisticRegression,RandomForest" });
}, 180_000);

afterAll(async () => {
  await fx?.close();
});

interface ModelBody {
  status: string;
  error: string | null;
  winner: { algorithm: string } | null;
}

async function startRun(f: ModelsFixture, name: string): Promise<string> {
  const res = await f.post("/v1/foundry/models/train", { dataset_id: f.datasetId, name, target_column: "class" });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const model = async (f: ModelsFixture, id: string) =>
  (await (await f.get(`/v1/foundry/models/${id}`)).json()) as ModelBody;

/** Starts a long-running worker, waits until the run is training, then kills the worker's group. */
async function killMidRun(f: ModelsFixture, id: string, attempt: number): Promise<void> {
  const worker = spawnLabWorker(f.svc, { leaseMs: LEASE_MS });
  try {
    await waitFor(
      `attempt ${attempt} to start training`,
      async () => {
        const job = await f.svc.service.queue.getJob(FOUNDRY_TRAIN_QUEUE, id);
        return job?.status === "active" && job.attemptsMade === attempt && (await model(f, id)).status === "training";
      },
      { timeoutMs: 60_000, everyMs: 20 },
    );
  } finally {
    await killLabWorker(worker);
  }
  // Dead, and nothing else runs it: the run still reads training, not failed or ready.
  expect((await model(f, id)).status).toBe("training");
  // Past the lease, the next worker may claim it.
  await Bun.sleep(LEASE_MS + 300);
}

describe.if(existsSync(LAB_PYTHON))("a lab worker killed mid-run", () => {
  test("the next worker resumes the run from the start and it ends ready", async () => {
    const f = fx as ModelsFixture;
    const id = await startRun(f, "resumed");
    await killMidRun(f, id, 1);
    await labWorkerDone(spawnLabWorker(f.svc, { once: true, leaseMs: 30_000 }));
    const m = await model(f, id);
    expect(m.status).toBe("ready");
    expect(m.error).toBeNull();
    expect(["LogisticRegression", "RandomForest"]).toContain(m.winner?.algorithm ?? "none");
    const job = await f.svc.service.queue.getJob(FOUNDRY_TRAIN_QUEUE, id);
    expect(job?.attemptsMade).toBe(2);
  }, 300_000);

  test("killed on every attempt: the run is marked failed with the reason, never stuck training", async () => {
    const f = fx as ModelsFixture;
    const id = await startRun(f, "lost");
    for (let attempt = 1; attempt <= TRAIN_ATTEMPTS; attempt++) await killMidRun(f, id, attempt);
    // A worker starting now finds the job's lease expired with no attempt left and fails it.
    await labWorkerDone(spawnLabWorker(f.svc, { once: true }));
    const m = await model(f, id);
    expect(m.status).toBe("failed");
    expect(m.error).toContain("lease expired");
    expect(m.winner).toBeNull();
  }, 300_000);
});
