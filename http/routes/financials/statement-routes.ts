/** GET /v1/financials/{cik}/ratios, /income and /revenue-segments: newest period first. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { FinancialsService } from "../../../domain/financials/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import type { CachedJson } from "./cache.ts";
import { CikParam, FinancialRatios, IncomeStatement, RevenueSegments, StatementQuery } from "./schema.ts";

const TAGS = ["Financials"];
const NOT_FOUND = { 404: json(ErrorBody, "No company with that CIK") };

const queryKey = (q: { fiscal_year?: number; period?: string; limit: number }) =>
  `${q.fiscal_year ?? ""}|${q.period ?? ""}|${q.limit}`;

export function registerStatementRoutes(
  app: OpenAPIHono<AppEnv>,
  financials: FinancialsService,
  guards: Guards,
  cached: CachedJson,
): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/financials/{cik}/ratios",
      tags: TAGS,
      summary: "Financial ratios, newest period first (definitions: docs/ratios.md)",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: CikParam, query: StatementQuery },
      responses: { 200: json(z.array(FinancialRatios), "Ratio records"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => {
      const cik = financials.cik(c.req.valid("param").cik);
      const q = c.req.valid("query");
      return cached(`ratios|${cik}|${queryKey(q)}`, () => financials.ratios(cik, q));
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/financials/{cik}/income",
      tags: TAGS,
      summary: "Standardised income statements, newest period first",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: CikParam, query: StatementQuery },
      responses: { 200: json(z.array(IncomeStatement), "Income statement records"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => {
      const cik = financials.cik(c.req.valid("param").cik);
      const q = c.req.valid("query");
      return cached(`income|${cik}|${queryKey(q)}`, () => financials.income(cik, q));
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/financials/{cik}/revenue-segments",
      tags: TAGS,
      summary: "Revenue by segment (one record per period and breakdown axis), newest period first",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: CikParam, query: StatementQuery },
      responses: { 200: json(z.array(RevenueSegments), "Segment records"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => {
      const cik = financials.cik(c.req.valid("param").cik);
      const q = c.req.valid("query");
      return cached(`segments|${cik}|${queryKey(q)}`, () => financials.revenueSegments(cik, q));
    },
  );
}
