/**
 * News over REST (spec 4.4): one enriched article by id, and history with the stream's
 * filter fields (spec 6.1) plus a published_at range, paged newest-ingested first.
 * Registered after the stream route, so /v1/news/stream is never read as an article id.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toWire } from "../../../domain/news/types.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { ArticleIdParam, NewsArticle, NewsListQuery, NewsPage } from "./schema.ts";

const TAGS = ["News"];

export function registerNewsRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/news",
      tags: TAGS,
      summary: "Historical news articles, filtered like the stream, newest ingested first",
      description:
        "Filters combine like the stream's: any listed value of a field matches (OR), and every given field " +
        "must match (AND). from/to bound published_at (from inclusive, to exclusive). Pages follow ingest " +
        "order; pass next_cursor back as cursor, with the same filters, for the next page.",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { query: NewsListQuery },
      responses: { 200: json(NewsPage, "A page of articles"), ...AUTH_ERRORS },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const page = await deps.news.list({
        tickers: q.tickers,
        categories: q.categories,
        countries: q.countries,
        sentiment: q.sentiment,
        min_impact: q.min_impact,
        source_types: q.source_types,
        from: q.from,
        to: q.to,
        after: q.cursor ? (decodeCursor(q.cursor) ?? undefined) : undefined,
        limit: q.limit,
      });
      return c.json(
        { articles: page.articles.map(toWire), next_cursor: page.next === null ? null : encodeCursor(page.next) },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/news/{article_id}",
      tags: TAGS,
      summary: "One enriched news article (the stream's article object, spec 2.11)",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: ArticleIdParam },
      responses: {
        200: json(NewsArticle, "The article"),
        404: json(ErrorBody, "No article with that id"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const article = await deps.news.get(c.req.valid("param").article_id);
      return c.json(toWire(article), 200);
    },
  );
}
