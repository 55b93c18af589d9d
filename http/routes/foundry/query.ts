/**
 * POST /v1/foundry/query: natural-language data access (docs/foundry-query.md). The body is
 * `{question}` (1..2,000 characters) under the default 1 MiB limit. A question the planner
 * cannot map is 200 with `answered: false` and a plain explanation; a planned statement the
 * validator refuses is 422 (spec section 7 body).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_QUESTION_CHARS } from "../../../domain/foundry/query/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const QueryBody = z
  .object({
    question: z
      .string()
      .min(1)
      .max(MAX_QUESTION_CHARS)
      .openapi({ example: "What was Apple's revenue in fiscal 2023?" }),
  })
  .openapi("FoundryQueryRequest");

const QueryAnswer = z
  .object({
    question: z.string(),
    answered: z.boolean(),
    source: z.enum(["lakehouse", "timeseries", "graph", "readmodel"]).nullable(),
    sql: z
      .string()
      .optional()
      .openapi({ description: "the statement that ran (lakehouse; time-series: its QuestDB form)" }),
    cypher: z.string().optional().openapi({ description: "the Cypher that ran (graph)" }),
    columns: z.array(z.string()),
    rows: z.array(z.array(z.any())),
    explanation: z.string(),
    planner: z.enum(["llm", "rules"]),
    truncated: z.boolean().openapi({ description: "more rows than the limit (1,000): rows holds the first ones" }),
  })
  .openapi("FoundryQueryAnswer");

export function registerFoundryQueryRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/query",
      tags: ["Foundry"],
      summary: "Ask a question in plain English over the tenant's tables, market data and graph",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: QueryBody } }, required: true } },
      responses: {
        200: json(QueryAnswer, "The answer, or answered=false with why the question cannot be answered"),
        503: json(ErrorBody, "No lakehouse, graph or time-series engine for the planned source"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { question } = c.req.valid("json");
      return c.json(await deps.foundry.query.ask(tenantOf(c), question, c.req.raw.signal), 200);
    },
  );
}
