/**
 * The relational read models (spec 1.9): their catalogue with the tenant's row counts, a
 * structured tenant-filtered read, a refresh, and the portfolios and watchlists behind
 * pm.*. JWT only; every call is scoped to the caller's tenant.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { READ_MODEL_SCHEMAS } from "../../../domain/foundry/readmodels/catalogue.ts";
import { PORTFOLIO_KINDS, READ_MODEL_OPS } from "../../../domain/foundry/readmodels/ports.ts";
import { MAX_READ_LIMIT } from "../../../domain/foundry/readmodels/select.ts";
import { MAX_HOLDINGS } from "../../../domain/foundry/readmodels/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { tenantOf } from "../rtdb/tenant.ts";

const TAGS = ["Foundry"];
const Num = z.number().finite().nullable().optional();
const HoldingIn = z.object({
  ticker: z.string().min(1).max(20).openapi({ example: "AAPL" }),
  cik: z.string().max(10).nullable().optional().openapi({ example: "320193" }),
  quantity: Num,
  weight: Num,
  cost_basis: Num,
});
const HoldingOut = z.object({
  ticker: z.string(),
  cik: z.string().nullable(),
  quantity: z.number().nullable(),
  weight: z.number().nullable(),
  cost_basis: z.number().nullable(),
});
const Kind = z.enum(PORTFOLIO_KINDS);
const PortfolioIn = z
  .object({
    name: z.string().min(1).max(200).openapi({ example: "Core tech" }),
    kind: Kind.default("portfolio"),
    description: z.string().max(4000).optional(),
    holdings: z.array(HoldingIn).max(MAX_HOLDINGS).optional(),
  })
  .openapi("PortfolioCreate");
const HoldingsIn = z.object({ holdings: z.array(HoldingIn).max(MAX_HOLDINGS) }).openapi("PortfolioHoldings");
const PortfolioOut = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: Kind,
    description: z.string(),
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    holdings: z.array(HoldingOut),
  })
  .openapi("Portfolio");
const IdParam = z.object({
  id: z
    .string()
    .uuid()
    .openapi({ param: { name: "id", in: "path" } }),
});
const Column = z.object({ name: z.string(), type: z.string(), nullable: z.boolean() });
const ReadModelInfo = z
  .object({
    schema: z.string(),
    table: z.string(),
    name: z.string(),
    description: z.string(),
    scope: z.enum(["public", "tenant"]),
    source: z.enum(["refresh", "model"]),
    columns: z.array(Column),
    row_count: z.number().int(),
    refreshed_at: z.string().nullable(),
  })
  .openapi("ReadModel");
const Scalar = z.union([z.string().max(4096), z.number(), z.boolean(), z.null()]);
const SelectIn = z
  .object({
    schema: z.enum(READ_MODEL_SCHEMAS),
    table: z.string().min(1).max(63).openapi({ example: "income_statements" }),
    columns: z.array(z.string().min(1).max(63)).max(200).optional(),
    where: z
      .array(
        z.object({
          column: z.string().min(1).max(63),
          op: z.enum(READ_MODEL_OPS),
          value: z.union([Scalar, z.array(Scalar).max(1000)]).optional(),
        }),
      )
      .max(50)
      .optional(),
    order_by: z
      .array(z.object({ column: z.string().min(1).max(63), direction: z.enum(["asc", "desc"]).optional() }))
      .max(10)
      .optional(),
    limit: z.number().int().min(1).max(MAX_READ_LIMIT).optional(),
  })
  .openapi("ReadModelSelect");
const SelectOut = z.object({ columns: z.array(z.string()), rows: z.array(z.array(z.any())) }).openapi("ReadModelRows");
const NOT_FOUND = { 404: json(ErrorBody, "No such portfolio in the tenant") };

export function registerFoundryReadModelRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const rm = () => deps.foundry.readModels;
  const who = (c: { get(key: "identity"): AppEnv["Variables"]["identity"] }) => {
    const id = c.get("identity");
    return id.kind === "user" ? String(id.user.id) : id.kind;
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/readmodels",
      tags: TAGS,
      summary: "The read models ci.*, dm.*, pm.*, md.* with their columns and the tenant's row counts",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(z.object({ tables: z.array(ReadModelInfo) }), "Read models"), ...AUTH_ERRORS },
    }),
    async (c) => c.json({ tables: await rm().list(tenantOf(c)) }, 200),
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/readmodels/select",
      tags: TAGS,
      summary: "Rows of one read model: structured columns, filters, order and limit (tenant-filtered)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: SelectIn } }, required: true } },
      responses: { 200: json(SelectOut, "Rows"), ...AUTH_ERRORS },
    }),
    async (c) => c.json(await rm().select(tenantOf(c), c.req.valid("json")), 200),
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/readmodels/refresh",
      tags: TAGS,
      summary: "Queue a refresh of the tenant's dm.* and md.* and of the public ci.*",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: {
        202: json(z.object({ jobs: z.array(z.string()) }), "Queued"),
        503: json(ErrorBody, "Refresh not available"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await rm().refresh(tenantOf(c)), 202),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/foundry/portfolios",
      tags: TAGS,
      summary: "Create a portfolio or watchlist (optionally with its holdings)",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { body: { content: { "application/json": { schema: PortfolioIn } }, required: true } },
      responses: {
        201: json(PortfolioOut, "Created"),
        409: json(ErrorBody, "A portfolio of that name exists"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => c.json(await rm().createPortfolio(tenantOf(c), who(c), c.req.valid("json")), 201),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/portfolios",
      tags: TAGS,
      summary: "The tenant's portfolios and watchlists, newest first",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      responses: { 200: json(z.object({ portfolios: z.array(PortfolioOut) }), "Portfolios"), ...AUTH_ERRORS },
    }),
    async (c) => c.json({ portfolios: await rm().listPortfolios(tenantOf(c)) }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/foundry/portfolios/{id}",
      tags: TAGS,
      summary: "One portfolio with its holdings",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: { 200: json(PortfolioOut, "Portfolio"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => c.json(await rm().getPortfolio(tenantOf(c), c.req.valid("param").id), 200),
  );
  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/foundry/portfolios/{id}",
      tags: TAGS,
      summary: "Delete a portfolio and its holdings",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => {
      await rm().deletePortfolio(tenantOf(c), c.req.valid("param").id);
      return c.body(null, 204);
    },
  );
  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/foundry/portfolios/{id}/holdings",
      tags: TAGS,
      summary: "Replace the portfolio's holdings",
      security: SECURITY.jwt,
      middleware: guards.jwt,
      request: {
        params: IdParam,
        body: { content: { "application/json": { schema: HoldingsIn } }, required: true },
      },
      responses: { 200: json(PortfolioOut, "Portfolio"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) =>
      c.json(await rm().replaceHoldings(tenantOf(c), c.req.valid("param").id, c.req.valid("json").holdings), 200),
  );
}
