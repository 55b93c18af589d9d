/**
 * Extracted company topics (spec 2.16) and emerging topics (spec 2.17), plus a listing of
 * the current emerging topics (not in the spec) so that their ids can be discovered.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { AppError } from "../../../../domain/errors.ts";
import { normalizeCik } from "../../../../domain/financials/fields.ts";
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

/** The default window start: the same calendar day three years back (UTC). */
export function threeYearsBefore(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear() - 3, now.getUTCMonth(), now.getUTCDate()));
  // 29 February three years back does not exist: Date rolls to 1 March, which is the intent.
  return d.toISOString().slice(0, 10);
}

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
    async (c) => {
      const cik = normalizeCik(c.req.valid("param").cik) ?? "";
      const q = c.req.valid("query");
      const now = new Date();
      const period = {
        date_from: q.date_from ?? threeYearsBefore(now),
        date_to: q.date_to ?? now.toISOString().slice(0, 10),
      };
      const topics = await deps.research.topics.extracted(cik, {
        ...period,
        source_type: q.source_type,
        limit: q.limit,
      });
      const company_name = await deps.research.topics.companyName(cik);
      return c.json({ cik, period, topics, company_name }, 200);
    },
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
    async (c) => {
      const list = await deps.research.topics.listEmerging();
      return c.json(
        {
          emerging_topics: list.map(({ topic, topic_id: _, ...e }) => ({ ...e, emerging_topic_name: topic })),
        },
        200,
      );
    },
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
    async (c) => {
      const id = c.req.valid("param").emerging_topic_id;
      const topic = await deps.research.topics.getEmerging(id);
      if (!topic) throw new AppError("not_found", `No emerging topic with id ${id}`);
      const companies = await deps.research.topics.emergingCompanies(topic, c.req.valid("query").limit);
      return c.json({ emerging_topic_id: id, emerging_topic_name: topic.topic, companies }, 200);
    },
  );
}
