/**
 * Extracted company topics (spec 2.16) and emerging topics (spec 2.17), plus a listing of
 * the current emerging topics (not in the spec) so that their ids can be discovered.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { type Guards, SECURITY } from "../../../auth/guards.ts";
import type { AppEnv } from "../../../context.ts";
import type { AppDeps } from "../../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../../schemas.ts";
import {
  CikParam,
  EmergingCompaniesQuery,
  EmergingCompaniesResponse,
  EmergingIdParam,
  EmergingTopicList,
  ExtractedTopicsQuery,
  ExtractedTopicsResponse,
} from "./schema.ts";

export function registerTopicRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/companies/{cik}/topics/extracted",
      tags: ["Topics"],
      summary: "Topics extracted from a company's earnings calls and 8-K filings",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: CikParam, query: ExtractedTopicsQuery },
      responses: { 200: json(ExtractedTopicsResponse, "Topics, most documents first"), ...AUTH_ERRORS },
    }),
    async (c) => c.json(await deps.financials.extractedTopics(c.req.valid("param").cik, c.req.valid("query")), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/topics/emerging",
      tags: ["Topics"],
      summary: "Currently emerging topics (strongest rise first), with their ids",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      responses: { 200: json(EmergingTopicList, "Emerging topics"), ...AUTH_ERRORS },
    }),
    async (c) => c.json({ emerging_topics: await deps.financials.emergingTopics() }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/topics/emerging/{emerging_topic_id}/companies",
      tags: ["Topics"],
      summary: "Companies whose recent documents mention an emerging topic",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: EmergingIdParam, query: EmergingCompaniesQuery },
      responses: {
        200: json(EmergingCompaniesResponse, "Companies, most documents first"),
        404: json(ErrorBody, "No emerging topic has that id"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) =>
      c.json(
        await deps.financials.emergingCompanies(c.req.valid("param").emerging_topic_id, c.req.valid("query").limit),
        200,
      ),
  );
}
