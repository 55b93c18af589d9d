/** GET /v1/presentations/{accession_number} (spec 2.18): an 8-K's EX-99 exhibit as Markdown. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { type Guards, SECURITY } from "../../../auth/guards.ts";
import type { AppEnv } from "../../../context.ts";
import type { AppDeps } from "../../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../../schemas.ts";
import { AccessionParam, PresentationBody } from "./schema.ts";

export function registerPresentationRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/presentations/{accession_number}",
      tags: ["Presentations"],
      summary: "An 8-K filing's investor presentation or press release (EX-99) as Markdown",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: AccessionParam },
      responses: {
        200: json(PresentationBody, "The presentation"),
        404: json(ErrorBody, "No filing with that accession number"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { accession_number } = c.req.valid("param");
      return c.json(await deps.financials.presentation(accession_number), 200);
    },
  );
}
