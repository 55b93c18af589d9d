/**
 * The news stream gate (domain/news/ports.ts NewsStreamGate): turns a request the HTTP
 * route has authenticated into a news socket. Composition hands it to the news service,
 * so the HTTP layer upgrades without importing the socket layer.
 */
import type { Server } from "bun";
import type { NewsStreamClient, NewsStreamGate } from "../../domain/news/ports.ts";
import type { NewsSocketData } from "./stream.ts";

function isBunServer(x: unknown): x is Server<NewsSocketData> {
  return typeof x === "object" && x !== null && "upgrade" in x && typeof x.upgrade === "function";
}

/**
 * Upgrades an authenticated request to a news socket. `server` is what Bun passed to
 * fetch (Hono's c.env); false when there is none (in-process requests) or the request is
 * not a valid WebSocket handshake.
 */
export function upgradeToNewsStream(server: unknown, req: Request, who: NewsStreamClient): boolean {
  if (!isBunServer(server)) return false;
  const data: NewsSocketData = { kind: "news", conn_id: crypto.randomUUID(), sub: null, ...who };
  return server.upgrade(req, { data, headers: { "X-Request-Id": who.request_id } });
}

export const newsStreamGate: NewsStreamGate = { upgrade: upgradeToNewsStream };
