/** GET /v1/transcripts (spec 2.15, 4.4): earnings-call summaries, filtered and paged. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { type Guards, SECURITY } from "../../../auth/guards.ts";
import type { AppEnv } from "../../../context.ts";
import type { AppDeps } from "../../../deps.ts";
import { AUTH_ERRORS, json } from "../../../schemas.ts";
import { TranscriptPage, TranscriptsQuery } from "./schema.ts";

export function registerTranscriptRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts",
      tags: ["Transcripts"],
      summary: "Earnings-call transcript summaries, newest call first (undated calls last)",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { query: TranscriptsQuery },
      responses: { 200: json(TranscriptPage, "A page of transcript summaries"), ...AUTH_ERRORS },
    }),
    async (c) => c.json(await deps.financials.transcripts(c.req.valid("query")), 200),
  );
}
