/**
 * Model training (spec 2.8, 4.9; prefix /v1/foundry/models, docs/decisions.md): start a run
 * (answers 202 at once; the lab worker trains), list, read one (status, progress, and when
 * done the lab's result), and the winner's SHAP top 20.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MODEL_STATUSES, PROBLEM_TYPES } from "../../../domain/foundry/models/model.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const Column = z.string().min(1).max(256);
export const TrainBody = z
  .object({
    dataset_id: z.string().uuid().openapi({ description: "a ready dataset of the caller's tenant" }),
    name: z
      .string()
      .min(1)
      .max(128)
      .refine((v) => v.trim().length > 0, "name must not be blank")
      .openapi({ example: "credit risk v1" }),
    target_column: Column.openapi({ example: "class" }),
    feature_columns: z
      .array(Column)
      .max(2000)
      .default([])
      .openapi({ description: "empty: every column except the target" }),
    problem_type: z.enum(PROBLEM_TYPES).nullable().optional().openapi({
      description:
        "omitted, null or auto: classification or regression, detected (docs/foundry-models.md; auto never picks timeseries or anomaly). timeseries: target_column is the numeric series, feature_columns[0] its time column (default: the table's single date/timestamp column). anomaly: target_column is the numeric value scored",
    }),
    label_column: Column.nullable().optional().openapi({
      description:
        "beyond the spec, anomaly runs only: a 0/1 or boolean column of known anomalies (non-zero = anomaly), never a feature; the run reports precision/recall at it",
    }),
    tuning_id: z.string().uuid().optional().openapi({
      description:
        "a ready tuning experiment (POST /v1/foundry/models/tune) on the same dataset and target: its best hyperparameters per algorithm are used",
    }),
  })
  .openapi("ModelTrainRequest");

const Status = z.enum(MODEL_STATUSES);
const Started = z
  .object({ id: z.string(), name: z.string(), status: z.literal("queued") })
  .openapi("ModelTrainStarted");
const Json = z.record(z.string(), z.any());
const Summary = {
  id: z.string(),
  name: z.string(),
  dataset_id: z.string(),
  target_column: z.string(),
  problem_type: z.string().nullable(),
  status: Status,
  winner: Json.nullable().openapi({ description: "{algorithm, metric, value} once ready" }),
  error: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
};
const ModelSummary = z.object(Summary).openapi("ModelSummary");
const ModelList = z.object({ models: z.array(ModelSummary) }).openapi("ModelList");
const Model = z
  .object({
    ...Summary,
    feature_columns: z.array(z.string()),
    requested_problem_type: z.string().nullable(),
    tuning_id: z.string().nullable().openapi({ description: "the tuning experiment whose best params the run used" }),
    tuned_params: Json.nullable().openapi({ description: "those params per algorithm: {XGBoost: {max_depth: 4}}" }),
    progress: z
      .any()
      .openapi({ description: "the lab's latest report while queued or training: {stage, done, total, record}" }),
    metrics: Json.nullable(),
    algorithms: z
      .array(Json)
      .openapi({ description: "per algorithm: status trained | timed_out | failed | skipped, reason, metrics" }),
    feature_importance: z.array(Json),
    imbalance_ratio: z.number().nullable(),
    smote_applied: z.boolean().nullable(),
    class_weight_applied: z.boolean().nullable(),
    time_column: z
      .string()
      .nullable()
      .openapi({ description: "timeseries: the time column; anomaly: the one that gave derived series features" }),
    label_column: z.string().nullable().openapi({ description: "anomaly: the label column of the request" }),
    inference_algorithm: z
      .string()
      .nullable()
      .openapi({ description: "anomaly: the detector saved for inference (IsolationForest, spec 4.9)" }),
    horizon: z
      .number()
      .nullable()
      .openapi({ description: "timeseries: points forecast in the holdout (the last 20%)" }),
    frequency: z
      .string()
      .nullable()
      .openapi({ description: "timeseries: the series' frequency (pandas alias: MS, D, 30min)" }),
    artifact: z.object({ sha256: z.string(), path: z.string().nullable() }).nullable(),
    result: Json.nullable().openapi({ description: "the lab's full run result (docs/foundry-models.md)" }),
  })
  .openapi("Model");
const Shap = z
  .object({
    id: z.string(),
    algorithm: z.string().nullable(),
    status: z.string().nullable(),
    explainer: z.string().nullable(),
    rows: z.number().nullable(),
    reason: z.string().nullable(),
    values: z.array(Json).openapi({ description: "[{feature, mean_abs_shap}], at most 20, largest first" }),
  })
  .openapi("ModelShap");
const IdParam = z.object({
  id: z
    .string()
    .uuid()
    .openapi({ param: { name: "id", in: "path" } }),
});

const TAGS = ["Foundry"];
const NOT_FOUND = { 404: json(ErrorBody, "No such model in the tenant") };

export function registerFoundryModelRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/models/train",
      tags: TAGS,
      summary: "Start a training run on a ready dataset; poll GET /v1/foundry/models/{id}",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: TrainBody } }, required: true } },
      responses: {
        202: json(Started, "Queued"),
        404: json(ErrorBody, "No such dataset in the tenant"),
        409: json(ErrorBody, "The dataset is not ready"),
        503: json(ErrorBody, "No lakehouse or catalog configured"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.foundry.models.train(tenantOf(c), c.req.valid("json")), 202),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/models",
      tags: TAGS,
      summary: "The tenant's training runs, oldest first",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(ModelList, "Models"), ...AUTH_ERRORS },
    }),
    async (c) => c.json({ models: await deps.foundry.models.list(tenantOf(c)) }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/models/{id}",
      tags: TAGS,
      summary: "A training run: status, progress, metrics, per-algorithm records, feature importance",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: { 200: json(Model, "The model"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await deps.foundry.models.get(tenantOf(c), c.req.valid("param").id), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/models/{id}/shap",
      tags: TAGS,
      summary: "The winning algorithm's mean absolute SHAP values of the top 20 features",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: {
        200: json(Shap, "SHAP top 20"),
        409: json(ErrorBody, "The model is not ready"),
        ...NOT_FOUND,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await deps.foundry.models.shap(tenantOf(c), c.req.valid("param").id), 200),
  );
}
