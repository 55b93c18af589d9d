/**
 * GET /v1/news/stream (spec 4.5, 5, 6.1): the WebSocket handshake. Everything is decided
 * before the upgrade, as for any request: the API key (X-API-Key header or ?apikey=) or
 * 401, an active tenant or 403, the account's rate limit or 429, each counted as one
 * request. Only then does the news service hand the handshake to the socket layer (a
 * port composition wires), and Bun switches protocols; the socket lives in sockets/news.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { Guards } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";

const DESCRIPTION = [
  "Live financial news over a WebSocket; JSON text frames both ways.",
  "Server frames: `connected` on open; `filter_applied` (the accepted, normalised filter) after each filter;",
  "`article` with `data` (the article object) plus `seq` (1, 2, 3... per connection) and `dropped`",
  "(articles this connection has lost so far; a slow reader loses the oldest queued articles beyond 200 and",
  "is never disconnected for it); `error` for malformed JSON or an invalid filter (the connection stays open).",
  "Client frame: a filter object with optional tickers, categories, countries (ISO-2), sentiment",
  "(bullish, bearish, neutral), min_impact (0.0 to 1.0) and source_types (rss, gdelt, reddit, twitter).",
  "Values within a field are ORed, fields are ANDed, and an empty filter delivers everything. Live only: no backfill.",
].join(" ");

export function registerNewsStreamRoute(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyQuery", {
    type: "apiKey",
    in: "query",
    name: "apikey",
    description:
      "A user's API key as a query parameter (the news WebSocket only, for clients that cannot set headers).",
  });
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/news/stream",
      tags: ["News"],
      summary: "Live news stream (WebSocket upgrade)",
      description: DESCRIPTION,
      security: [{ apiKeyHeader: [] }, { apiKeyQuery: [] }],
      middleware: guards.api_key_or_query,
      request: { query: z.object({ apikey: z.string().optional() }) },
      responses: {
        101: { description: "Switching Protocols: the stream is open" },
        426: json(ErrorBody, "The request is not a WebSocket handshake"),
        ...AUTH_ERRORS,
      },
    }),
    (c) => {
      const id = c.get("identity") as UserIdentity;
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
        throw new AppError(
          "upgrade_required",
          "This endpoint speaks WebSocket only (send Upgrade: websocket)",
          undefined,
          {
            Upgrade: "websocket",
          },
        );
      }
      const server: unknown = c.env;
      const who = { tenant_id: id.tenantId, user_id: id.user.id, request_id: c.get("requestId") };
      deps.news.openStream(server, c.req.raw, who);
      // Bun has taken the connection over; it ignores whatever response is returned here.
      return new Response(null);
    },
  );
}
