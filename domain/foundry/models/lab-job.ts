/**
 * What a lab job (training or tuning, queue "foundry-train") says about its run: the patch a
 * run record takes when it is read. A completed job is ready when the lab's result says
 * `succeeded`, failed with the lab's reason otherwise; a failed job (its worker lost on the
 * last attempt, an error) is failed with the queue's error; an active one is `running` with the
 * lab's progress; a job gone from the queue fails the run. Null: nothing to write.
 */
import type { JobInfo, JsonValue } from "../../ports.ts";
import { storableResult } from "./model.ts";

/** The queue and job name the lab worker consumes (lab/src/lab/jobs/handlers.py). */
export const FOUNDRY_TRAIN_QUEUE = "foundry-train";
export const TRAIN_JOB = "models.train";
/** A run is tried at most twice: once, and once more after its lab worker was lost. */
export const TRAIN_ATTEMPTS = 2;

export interface LabJobPatch<S extends string> {
  status: "ready" | "failed" | S;
  progress?: JsonValue | null;
  error?: string | null;
  result?: Record<string, JsonValue> | null;
  finished_at?: string;
}

/**
 * `run`: the record's status and progress now; `running`: the status a run in progress reads
 * (training, tuning); `what`: "training" or "tuning", for the messages.
 */
export function labJobPatch<S extends string>(
  job: JobInfo | null,
  run: { status: string; progress: JsonValue | null },
  running: S,
  what: string,
): LabJobPatch<S> | null {
  const now = new Date().toISOString();
  if (!job) return { status: "failed", error: `The ${what} job is no longer in the queue`, finished_at: now };
  if (job.status === "completed") {
    const result = storableResult(job.result);
    const ok = result?.status === "succeeded";
    return {
      status: ok ? "ready" : "failed",
      error: ok ? null : String(result?.reason ?? "the lab returned no result"),
      result,
      progress: null,
      finished_at: job.finishedAt ?? now,
    };
  }
  if (job.status === "failed") {
    return {
      status: "failed",
      error: job.error ?? `the ${what} job failed`,
      progress: null,
      finished_at: job.finishedAt ?? now,
    };
  }
  if (job.status !== "active") return null;
  const progress = job.progress ?? null;
  if (run.status === running && JSON.stringify(run.progress) === JSON.stringify(progress)) return null;
  return { status: running, progress };
}
