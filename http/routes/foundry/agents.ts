/**
 * Foundry agents (spec 2.7, 3.3, 4.9, 6.2; docs/foundry-agents.md): create and list as the
 * spec has them, and beyond it read one, pause, resume, delete, run, and the runs and
 * notifications of an agent (the dashboard's status changes, docs/decisions.md).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AGENT_STATUSES, AGENT_TYPES, ALERT_CHANNELS } from "../../../domain/foundry/agents/model.ts";
import { agentsOf } from "../../../domain/foundry/agents/registry.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const Json = z.record(z.string(), z.any());
const Row = z.record(z.string(), z.any());
const Entity = z
  .object({
    name: z.string().max(200).optional(),
    table: z.string().max(63).optional(),
    key_column: z.string().max(128).optional(),
    key: z.union([z.string().max(200), z.number()]).optional(),
    rows: z.array(Row).max(100).optional(),
    output_table: z.string().max(63).optional(),
  })
  .strict()
  .openapi({
    description:
      "beyond the spec: what score/alert/batch agents work on: {table, key_column, key} or {rows}; batch: {table, output_table?}",
  });

export const AgentBody = z
  .object({
    name: z.string().min(1).max(128),
    description: z.string().max(2000).nullable().optional(),
    registry_id: z.string().min(1).max(200).nullable().optional(),
    agent_type: z.enum(AGENT_TYPES).default("predict"),
    alert_threshold: z.number().finite().nullable().optional(),
    alert_channel: z.enum(ALERT_CHANNELS).nullable().optional(),
    alert_webhook: z.string().max(2000).nullable().optional(),
    schedule_cron: z.string().max(200).nullable().optional(),
    batch_dag_id: z.string().min(1).max(200).nullable().optional(),
    entity: Entity.nullable().optional(),
  })
  .openapi("AgentRequest");

const Created = z
  .object({
    id: z.string(),
    name: z.string(),
    agent_type: z.enum(AGENT_TYPES),
    status: z.literal("active"),
    call_count: z.literal(0),
    created_at: z.string(),
  })
  .openapi("AgentCreated");
const Agent = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    agent_type: z.enum(AGENT_TYPES),
    alert_threshold: z.number().nullable(),
    alert_channel: z.enum(ALERT_CHANNELS).nullable(),
    schedule_cron: z.string().nullable(),
    status: z.enum(AGENT_STATUSES),
    call_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    registry_id: z.string().nullable(),
    batch_dag_id: z.string().nullable(),
    entity: Json.nullable(),
    last_fire_at: z.string().nullable(),
    next_fire_at: z.string().nullable(),
  })
  .openapi("Agent");
const RunBody = z
  .object({
    rows: z.array(Row).max(1000).optional(),
    key_column: z.string().max(128).optional().openapi({ description: "the rows' entity key, for alert dedupe" }),
  })
  .openapi("AgentRunRequest");
const IdParam = z.object({
  id: z
    .string()
    .uuid()
    .openapi({ param: { name: "id", in: "path" } }),
});

const TAGS = ["Foundry"];
const NOT_FOUND = { 404: json(ErrorBody, "No such agent in the tenant (or deleted)") };
const CONFLICT = { 409: json(ErrorBody, "The agent is not active, or its model is not deployed") };

export function registerFoundryAgentRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const agents = () => agentsOf(deps.foundry);
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/agents",
      tags: TAGS,
      summary: "Create an agent (status active)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: AgentBody } }, required: true } },
      responses: { 200: json(Created, "Created"), ...AUTH_ERRORS },
    }),
    async (c) => c.json(await agents().create(tenantOf(c), c.req.valid("json")), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/agents",
      tags: TAGS,
      summary: "The tenant's agents (deleted ones excluded), oldest first",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(z.object({ agents: z.array(Agent) }).openapi("AgentList"), "Agents"), ...AUTH_ERRORS },
    }),
    async (c) => c.json({ agents: await agents().list(tenantOf(c)) }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/agents/{id}",
      tags: TAGS,
      summary: "One agent",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: { 200: json(Agent, "The agent"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await agents().get(tenantOf(c), c.req.valid("param").id), 200),
  );
  for (const op of ["pause", "resume"] as const) {
    app.openapi(
      createRoute({
        method: "post",
        path: `/v1/foundry/agents/{id}/${op}`,
        tags: TAGS,
        summary: op === "pause" ? "Pause: no runs, no alerts" : "Resume: active again, next fire from now",
        security: SECURITY.jwt,
        middleware: guards.jwt,
        request: { params: IdParam },
        responses: { 200: json(Agent, "The agent"), ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
      }),
      async (c) => c.json(await agents()[op](tenantOf(c), c.req.valid("param").id), 200),
    );
  }
  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/foundry/agents/{id}",
      tags: TAGS,
      summary: "Delete: status deleted, gone from listings, 404 afterwards",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: { 200: json(Agent, "The deleted agent"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await agents().remove(tenantOf(c), c.req.valid("param").id), 200),
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/agents/{id}/run",
      tags: TAGS,
      summary: "predict/alert: score rows now; score/batch: queue a manual run (202)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam, body: { content: { "application/json": { schema: RunBody } }, required: false } },
      responses: {
        200: json(Json, "{agent_id, predictions, call_count, alerts?}"),
        202: json(Json, "{agent_id, run_id, status: queued}"),
        ...NOT_FOUND,
        ...CONFLICT,
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const out = await agents().run(tenantOf(c), c.req.valid("param").id, c.req.valid("json") ?? {});
      return out.kind === "queued" ? c.json(out.body as Record<string, unknown>, 202) : c.json(out.body, 200);
    },
  );
  for (const what of ["runs", "alerts"] as const) {
    app.openapi(
      createRoute({
        method: "get",
        path: `/v1/foundry/agents/{id}/${what}`,
        tags: TAGS,
        summary:
          what === "runs"
            ? "The agent's last 100 runs, newest first (status, progress, result, error)"
            : "The agent's last 100 notifications, newest first (delivery status, attempts, last error)",
        security: SECURITY.jwt,
        middleware: guards.jwt,
        request: { params: IdParam },
        responses: { 200: json(z.object({ [what]: z.array(Json) }), what), ...NOT_FOUND, ...AUTH_ERRORS },
      }),
      async (c) => {
        const list = await agents()[what](tenantOf(c), c.req.valid("param").id);
        return c.json({ [what]: list as unknown as Record<string, unknown>[] }, 200);
      },
    );
  }
}
