/**
 * Financial data (spec 4.4): ratios and income statements per CIK, company facts and
 * revenue segments. API-key routes (spec 5). Reads are materialised rows (ingested by
 * pipelines/financials/sec); an unknown CIK is a 404, a known one with no rows an empty list.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../../../domain/errors.ts";
import { normalizeCik } from "../../../domain/financials/fields.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { ResponseCache } from "./cache.ts";
import {
  CikParam,
  CompanyFactsBody,
  FinancialRatios,
  IncomeStatement,
  RevenueSegments,
  StatementQuery,
} from "./schema.ts";

const TAGS = ["Financials"];
const NOT_FOUND = { 404: json(ErrorBody, "No company with that CIK") };

export function registerFinancialRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const cikOf = (raw: string): string => {
    const cik = normalizeCik(raw);
    if (!cik) throw new AppError("not_found", `No company with CIK ${raw}`);
    return cik;
  };
  /** Empty results are only a 404 when the company itself is unknown. */
  const orNotFound = async <T>(cik: string, rows: T[]): Promise<T[]> => {
    if (rows.length === 0 && !(await deps.financials.company(cik)))
      throw new AppError("not_found", `No company with CIK ${cik}`);
    return rows;
  };
  const generation = deps.financials.generation?.bind(deps.financials);
  const cache = new ResponseCache(generation ? { generation } : {});
  /**
   * Serves `load()` as JSON through the response cache. The key is the resource and the
   * validated query (normalised CIK, defaults applied), never anything tenant-specific:
   * the data is the same for every caller.
   */
  const cached = async (key: string, load: () => Promise<unknown>): Promise<never> => {
    let body = cache.get(key);
    if (body === null) {
      const gen = cache.currentGeneration();
      body = new TextEncoder().encode(JSON.stringify(await load()));
      cache.set(key, body, gen);
    }
    // Already-serialised JSON of the route's 200 schema; OpenAPIHono types JSON bodies only
    // through c.json, which would encode it again.
    return new Response(body, { status: 200, headers: { "content-type": "application/json" } }) as never;
  };
  const queryKey = (q: { fiscal_year?: number; period?: string; limit: number }) =>
    `${q.fiscal_year ?? ""}|${q.period ?? ""}|${q.limit}`;

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
      const cik = cikOf(c.req.valid("param").cik);
      const q = c.req.valid("query");
      return cached(`ratios|${cik}|${queryKey(q)}`, async () => orNotFound(cik, await deps.financials.ratios(cik, q)));
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
      const cik = cikOf(c.req.valid("param").cik);
      const q = c.req.valid("query");
      return cached(`income|${cik}|${queryKey(q)}`, async () => orNotFound(cik, await deps.financials.income(cik, q)));
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
      const cik = cikOf(c.req.valid("param").cik);
      const q = c.req.valid("query");
      return cached(`segments|${cik}|${queryKey(q)}`, async () =>
        orNotFound(cik, await deps.revenueSegments.revenueSegments(cik, q)),
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/companies/{cik}",
      tags: TAGS,
      summary: "Company facts: profile and the latest reported value of every XBRL concept",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: CikParam },
      responses: { 200: json(CompanyFactsBody, "Company facts"), ...NOT_FOUND, ...AUTH_ERRORS },
    }),
    async (c) => {
      const cik = cikOf(c.req.valid("param").cik);
      return cached(`company|${cik}`, async () => {
        const company = await deps.financials.company(cik);
        if (!company) throw new AppError("not_found", `No company with CIK ${cik}`);
        return company;
      });
    },
  );
}
