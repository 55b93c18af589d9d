/**
 * Tuning experiments (spec 4.9; issue 16): POST /v1/foundry/models/tune runs the same checks
 * as a training run, stores a queued experiment and enqueues `models.tune` on the
 * "foundry-train" queue; the lab worker runs the Optuna study (TPE, constant_liar, 12 trials,
 * 2 at a time; lab/src/lab/models/tune_job.py) and writes progress and the result into the job.
 * GET /v1/foundry/models/{id}/tune (id = the experiment's id) reads the job like a model read
 * does. A following POST /v1/foundry/models/train names the experiment in `tuning_id`, and
 * `paramsFor` hands that run the best hyperparameters per algorithm family.
 */
import { AppError } from "../../errors.ts";
import type { JsonValue } from "../../ports.ts";
import type { TenantRef } from "../../tenants/namespaces.ts";
import { checkTrainingInput, type InputCheckDeps, readyDataset } from "./checks.ts";
import { FOUNDRY_TRAIN_QUEUE, labJobPatch } from "./lab-job.ts";
import type { TrainQueue } from "./ports.ts";
import {
  bestParams,
  TUNING_PARALLEL,
  TUNING_TRIALS,
  type TuneRequest,
  type TuningPatch,
  type TuningRecord,
  type TuningStatus,
  type TuningStore,
  tuningView,
} from "./tuning-model.ts";

export const TUNE_JOB = "models.tune";
/** As for training runs: a lab worker lost mid-study gives the study one more start. */
export const TUNE_ATTEMPTS = 2;

/** Lab options every experiment gets from the installation's configuration. */
export interface TuneDefaults {
  /** Limits the families searched (lab names, e.g. ["XGBoost", "LightGBM"]); null = all six. */
  families: string[] | null;
  /** Wall-clock cap of the whole study in seconds; null = none (12 trials always end it). */
  timeoutS: number | null;
}

export interface FoundryTuningDeps extends InputCheckDeps {
  tunings: TuningStore;
  queue: TrainQueue;
  defaults: TuneDefaults;
}

/** What a training run takes from a finished experiment. */
export interface TunedParams {
  id: string;
  /** Per family: {hyperparameter: value} (the lab's TrainOptions.params). */
  params: Record<string, Record<string, JsonValue>>;
}

const ACTIVE: TuningStatus[] = ["queued", "tuning"];

export class FoundryTuning {
  constructor(private readonly deps: FoundryTuningDeps) {}

  /** POST /v1/foundry/models/tune: every check before the job is queued; answers at once. */
  async start(t: TenantRef, req: TuneRequest) {
    const ds = await readyDataset(this.deps, t, req.dataset_id);
    const problem = req.problem_type && req.problem_type !== "auto" ? req.problem_type : null;
    const checked = await checkTrainingInput(this.deps, t, req, problem, ds);
    const id = crypto.randomUUID();
    const record = await this.deps.tunings.createTuning({
      id,
      tenant_id: t.tenantId,
      name: req.name.trim(),
      dataset_id: ds.id,
      table_name: ds.output_table,
      target_column: req.target_column,
      feature_columns: checked.features,
      problem_type: problem,
      job_id: id,
    });
    const options: Record<string, JsonValue> = { n_trials: TUNING_TRIALS, parallel: TUNING_PARALLEL };
    if (this.deps.defaults.families) options.families = this.deps.defaults.families;
    if (this.deps.defaults.timeoutS) options.timeout_s = this.deps.defaults.timeoutS;
    const data: Record<string, JsonValue> = {
      catalog_uri: checked.catalog.catalogUri,
      warehouse: checked.catalog.warehouse,
      namespace: checked.namespace,
      table: ds.output_table,
      target_column: req.target_column,
      options,
      // Carried for the operator and the lab's logs; the lab reads only the keys above.
      tenant_id: t.tenantId,
      tuning_id: id,
    };
    if (checked.features.length) data.feature_columns = checked.features;
    if (problem) data.problem_type = problem;
    try {
      await this.deps.queue.enqueue(FOUNDRY_TRAIN_QUEUE, TUNE_JOB, data, { jobId: id, attempts: TUNE_ATTEMPTS });
    } catch (err) {
      await this.deps.tunings.updateTuning(t.tenantId, id, {
        status: "failed",
        error: `The tuning experiment could not be queued: ${(err as Error).message}`,
        finished_at: new Date().toISOString(),
      });
      throw err;
    }
    return { id, name: record.name, status: "queued" as const };
  }

  /** GET /v1/foundry/models/{id}/tune: status and progress while running, the study when ready. */
  async get(t: TenantRef, id: string) {
    return tuningView(await this.record(t, id));
  }

  /**
   * The best hyperparameters of the tenant's finished experiment for a training run on
   * `use`'s dataset and target: 404 unknown (or another tenant's), 409 not ready, 422 when it
   * tuned another dataset, target or problem type.
   */
  async paramsFor(
    t: TenantRef,
    id: string,
    use: { dataset_id: string; target_column: string; problem_type: string | null },
  ): Promise<TunedParams> {
    const x = await this.record(t, id);
    if (x.status !== "ready") {
      throw new AppError("conflict", `Tuning experiment '${x.name}' is ${x.status}: train with it once it is ready`);
    }
    const tuned = typeof x.result?.problem_type === "string" ? x.result.problem_type : null;
    const mismatch =
      x.dataset_id !== use.dataset_id
        ? `tuned dataset '${x.dataset_id}', not '${use.dataset_id}'`
        : x.target_column !== use.target_column
          ? `tuned target '${x.target_column}', not '${use.target_column}'`
          : use.problem_type && tuned && use.problem_type !== tuned
            ? `tuned a ${tuned} problem, not ${use.problem_type}`
            : null;
    if (mismatch) {
      throw AppError.validation([
        {
          loc: ["body", "tuning_id"],
          msg: `Tuning experiment '${x.name}' ${mismatch}`,
          type: "value_error",
          input: id,
          ctx: { dataset_id: x.dataset_id, target_column: x.target_column, problem_type: tuned },
        },
      ]);
    }
    return { id: x.id, params: bestParams(x.result) };
  }

  private async record(t: TenantRef, id: string): Promise<TuningRecord> {
    const x = await this.deps.tunings.getTuning(t.tenantId, id);
    if (!x) throw new AppError("not_found", `No tuning experiment '${id}'`);
    return ACTIVE.includes(x.status) ? this.sync(x) : x;
  }

  /** Reads the job and stores what it says; a record another reader already finished stays as is. */
  private async sync(x: TuningRecord): Promise<TuningRecord> {
    const job = await this.deps.queue.getJob(FOUNDRY_TRAIN_QUEUE, x.job_id);
    const patch: TuningPatch | null = labJobPatch(job, x, "tuning", "tuning");
    if (!patch) return x;
    return (
      (await this.deps.tunings.updateTuning(x.tenant_id, x.id, patch, ACTIVE)) ??
      ((await this.deps.tunings.getTuning(x.tenant_id, x.id)) as TuningRecord)
    );
  }
}
