/**
 * Deployed models (spec 2.8, 3.4, 4.9; docs/foundry-serving.md) under /v1/foundry/models/{id}:
 * deploy (202, then deploying -> active), the deployment, predict (503 + Retry-After while
 * deploying), threshold, drift, explain and the KServe manifest. `{id}` is the model run's id
 * or the deployment's registry id.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../../../domain/errors.ts";
import { THRESHOLD_METRICS } from "../../../domain/foundry/serving/model.ts";
import { MAX_HORIZON, MAX_PREDICT_ROWS } from "../../../domain/foundry/serving/predict.ts";
import type { FoundryServing } from "../../../domain/foundry/serving/service.ts";
import { lakehouseNamespace } from "../../../domain/tenants/namespaces.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const Json = z.record(z.string(), z.any());
const IdParam = z.object({
  id: z
    .string()
    .uuid()
    .openapi({ param: { name: "id", in: "path" }, description: "the model run's id or the deployment's registry id" }),
});
const DeployBody = z
  .object({
    model_name: z.string().min(1).max(200).openapi({
      example: "credit-risk",
      description: "1-40 lowercase letters, digits, hyphens (not first or last); unique in the tenant",
    }),
  })
  .openapi("ModelDeployRequest");
const Deployment = z
  .object({
    id: z.string(),
    registry_id: z.string().openapi({ description: "the same id: what agents reference (spec 2.7)" }),
    model_id: z.string(),
    model_name: z.string(),
    version: z.number().int(),
    status: z.enum(["deploying", "active", "failed"]),
    error: z.string().nullable(),
    problem_type: z.string(),
    threshold: z.number(),
    threshold_metric: z.string().nullable(),
    artifact_sha256: z.string(),
    metrics: Json.nullable(),
    deployed_at: z.string(),
  })
  .openapi("ModelDeployment");
const Row = z.record(z.string(), z.any());
const PredictBody = z
  .object({
    rows: z
      .array(Row)
      .max(MAX_PREDICT_ROWS)
      .optional()
      .openapi({
        description: `1-${MAX_PREDICT_ROWS} rows, each {feature column: value} with exactly the model's feature columns`,
      }),
    instances: z.array(Row).max(MAX_PREDICT_ROWS).optional().openapi({ description: "an alias of rows" }),
    horizon: z.number().int().min(1).max(MAX_HORIZON).optional().openapi({
      description: "time-series models: the number of steps to forecast",
    }),
  })
  .openapi("ModelPredictRequest");
const PredictResponse = z
  .object({
    model_id: z.string(),
    registry_id: z.string(),
    model_name: z.string(),
    version: z.number().int(),
    problem_type: z.string(),
    threshold: z.number().nullable(),
    served_by: z.enum(["onnx", "oip"]).openapi({
      description: "the path that answered: the in-service ONNX fast path or the inference server (OIP v2)",
    }),
    predictions: z.array(Json).openapi({
      description:
        "per row: binary {label: 1|0 by the threshold, score: positive-class probability, class}; multi-class {label, probabilities}; regression {value}; anomaly {score, flag}; time-series per step {ds, yhat}",
    }),
  })
  .openapi("ModelPredictions");
const ThresholdBody = z
  .object({
    threshold: z.number().gt(0).lt(1).openapi({ description: "strictly between 0 and 1", example: 0.3 }),
    threshold_metric: z.enum(THRESHOLD_METRICS).nullable().optional(),
  })
  .openapi("ModelThresholdRequest");

const TAGS = ["Foundry"];
const NOT_FOUND = { 404: json(ErrorBody, "No such model in the tenant") };
const NOT_DEPLOYED = { 409: json(ErrorBody, "The model is not deployed (or, for deploy, not ready)") };

function servingOf(deps: AppDeps): FoundryServing {
  const s = deps.foundry.serving;
  if (!s) throw new AppError("unavailable", "Model serving is not configured in this installation");
  return s;
}

export function registerFoundryServingRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const route = <P extends string>(method: "get" | "post", path: P, summary: string) => ({
    method,
    path,
    tags: TAGS,
    summary,
    security: SECURITY.jwt,
    middleware: guards.jwt,
  });
  app.openapi(
    createRoute({
      ...route(
        "post",
        "/v1/foundry/models/{id}/deploy",
        "Deploy a trained model under a name (202; deploying, then active)",
      ),
      request: { params: IdParam, body: { content: { "application/json": { schema: DeployBody } }, required: true } },
      responses: {
        202: json(Deployment, "Registered; loading in the background"),
        503: json(ErrorBody, "No inference server configured, or too many loads queued"),
        ...NOT_DEPLOYED,
        ...NOT_FOUND,
        ...AUTH_ERRORS,
      },
    }),
    async (c) =>
      c.json(await servingOf(deps).deploy(tenantOf(c), c.req.valid("param").id, c.req.valid("json").model_name), 202),
  );
  app.openapi(
    createRoute({
      ...route("get", "/v1/foundry/models/{id}/deployment", "The model's deployment: status, version, threshold"),
      request: { params: IdParam },
      responses: { 200: json(Deployment, "The deployment"), ...NOT_DEPLOYED, ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await servingOf(deps).deployment(tenantOf(c), c.req.valid("param").id), 200),
  );
  app.openapi(
    createRoute({
      ...route("get", "/v1/foundry/models/{id}/deploy/manifest", "The KServe InferenceService (raw deployment mode)"),
      request: { params: IdParam },
      responses: { 200: json(Json, "The manifest (JSON)"), ...NOT_DEPLOYED, ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => {
      const t = tenantOf(c);
      return c.json(await servingOf(deps).manifest(t, c.req.valid("param").id, lakehouseNamespace(t.slug)), 200);
    },
  );
  app.openapi(
    createRoute({
      ...route(
        "post",
        "/v1/foundry/models/{id}/predict",
        "Predictions of the deployed model (503 + Retry-After while deploying)",
      ),
      request: { params: IdParam, body: { content: { "application/json": { schema: PredictBody } }, required: true } },
      responses: {
        200: json(PredictResponse, "Predictions"),
        503: json(ErrorBody, "Deploying: retry after Retry-After seconds"),
        ...NOT_DEPLOYED,
        ...NOT_FOUND,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const field = body.rows ? "rows" : "instances";
      const rows = (body.rows ?? body.instances ?? []) as Record<string, never>[];
      const opts = body.horizon === undefined ? { field } : { field, horizon: body.horizon };
      return c.json(await servingOf(deps).predict(tenantOf(c), c.req.valid("param").id, rows, opts), 200);
    },
  );
  app.openapi(
    createRoute({
      ...route("post", "/v1/foundry/models/{id}/threshold", "Set the decision threshold of a deployed binary model"),
      request: {
        params: IdParam,
        body: { content: { "application/json": { schema: ThresholdBody } }, required: true },
      },
      responses: {
        200: json(Json, "The deployment with the new threshold, and the best threshold for the metric"),
        ...NOT_DEPLOYED,
        ...NOT_FOUND,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const b = c.req.valid("json");
      return c.json(
        await servingOf(deps).setThreshold(tenantOf(c), c.req.valid("param").id, b.threshold, b.threshold_metric),
        200,
      );
    },
  );
  app.openapi(
    createRoute({
      ...route(
        "get",
        "/v1/foundry/models/{id}/drift",
        "PSI per feature: the last 500 predictions against the training deciles",
      ),
      request: { params: IdParam },
      responses: { 200: json(Json, "Drift per feature"), ...NOT_DEPLOYED, ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await servingOf(deps).drift(tenantOf(c), c.req.valid("param").id), 200),
  );
  app.openapi(
    createRoute({
      ...route("get", "/v1/foundry/models/{id}/explain", "Plain English from the stored top feature importances"),
      request: { params: IdParam },
      responses: {
        200: json(Json, "{source: llm | template, text, features}"),
        409: json(ErrorBody, "The model is not ready"),
        ...NOT_FOUND,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await servingOf(deps).explain(tenantOf(c), c.req.valid("param").id), 200),
  );
}
