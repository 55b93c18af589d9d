/**
 * Tuning experiments (spec 4.9; docs/decisions.md "Foundry tuning"): POST /v1/foundry/models/tune
 * starts one (answers 202 at once; the lab worker runs the Optuna study, 12 trials 2 at a time),
 * GET /v1/foundry/models/{id}/tune with the experiment's id reads it: progress while running,
 * the trials and the best hyperparameters once ready. A following POST /v1/foundry/models/train
 * names it in `tuning_id`.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { TUNING_PROBLEM_TYPES, TUNING_STATUSES } from "../../../domain/foundry/models/tuning-model.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const Column = z.string().min(1).max(256);
export const TuneBody = z
  .object({
    dataset_id: z.string().uuid().openapi({ description: "a ready dataset of the caller's tenant" }),
    name: z
      .string()
      .min(1)
      .max(128)
      .refine((v) => v.trim().length > 0, "name must not be blank")
      .openapi({ example: "credit risk tuning" }),
    target_column: Column.openapi({ example: "class" }),
    problem_type: z
      .enum(TUNING_PROBLEM_TYPES)
      .nullable()
      .optional()
      .openapi({ description: "omitted, null or auto: detected as for training (docs/foundry-models.md)" }),
    feature_columns: z
      .array(Column)
      .max(2000)
      .default([])
      .openapi({ description: "beyond the spec, as for training: empty = every column except the target" }),
  })
  .openapi("ModelTuneRequest");

const Started = z.object({ id: z.string(), name: z.string(), status: z.literal("queued") }).openapi("ModelTuneStarted");
const Json = z.record(z.string(), z.any());
const Tuning = z
  .object({
    id: z.string(),
    name: z.string(),
    dataset_id: z.string(),
    target_column: z.string(),
    feature_columns: z.array(z.string()),
    problem_type: z.string().nullable(),
    requested_problem_type: z.string().nullable(),
    status: z.enum(TUNING_STATUSES),
    progress: z.any().openapi({
      description: "while queued or tuning: {stage: tuning, done, total, trial, best}; null afterwards",
    }),
    trials_total: z.number(),
    parallel: z.number(),
    trials: z.array(Json).openapi({
      description: "per trial: number, algorithm, params, value, state, datetime_start, datetime_complete, seconds",
    }),
    max_concurrency: z
      .number()
      .nullable()
      .openapi({ description: "the most trials that ran at once, from their own start/complete times" }),
    best: z
      .object({
        algorithm: z.string().nullable(),
        params: Json,
        metric: z.string().nullable(),
        value: z.number().nullable(),
      })
      .nullable(),
    best_params: z
      .record(z.string(), Json)
      .openapi({ description: "per algorithm family, its best hyperparameters (what a train with tuning_id uses)" }),
    error: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("ModelTuning");
const IdParam = z.object({
  id: z
    .string()
    .uuid()
    .openapi({ param: { name: "id", in: "path" }, description: "the tuning experiment's id" }),
});

const TAGS = ["Foundry"];

export function registerFoundryTuningRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/models/tune",
      tags: TAGS,
      summary: "Start a tuning experiment on a ready dataset; poll GET /v1/foundry/models/{id}/tune",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: TuneBody } }, required: true } },
      responses: {
        202: json(Started, "Queued"),
        404: json(ErrorBody, "No such dataset in the tenant"),
        409: json(ErrorBody, "The dataset is not ready"),
        503: json(ErrorBody, "No lakehouse or catalog configured"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.foundry.models.tuningOf().start(tenantOf(c), c.req.valid("json")), 202),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/models/{id}/tune",
      tags: TAGS,
      summary: "A tuning experiment: status and progress while running; trials and best hyperparameters when ready",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: {
        200: json(Tuning, "The tuning experiment"),
        404: json(ErrorBody, "No such tuning experiment in the tenant"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.foundry.models.tuningOf().get(tenantOf(c), c.req.valid("param").id), 200),
  );
}
