/** GET /v1/companies/{cik}: the company's profile and latest facts. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { FinancialsService } from "../../../domain/financials/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import type { CachedJson } from "./cache.ts";
import { CikParam, CompanyFactsBody } from "./schema.ts";

export function registerCompanyRoutes(
  app: OpenAPIHono<AppEnv>,
  financials: FinancialsService,
  guards: Guards,
  cached: CachedJson,
): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/companies/{cik}",
      tags: ["Financials"],
      summary: "Company facts: profile and the latest reported value of every XBRL concept",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: CikParam },
      responses: {
        200: json(CompanyFactsBody, "Company facts"),
        404: json(ErrorBody, "No company with that CIK"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const cik = financials.cik(c.req.valid("param").cik);
      return cached(`company|${cik}`, () => financials.company(cik));
    },
  );
}
