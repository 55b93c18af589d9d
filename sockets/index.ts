/**
 * WebSockets: one Bun handler for the whole server, dispatching on the kind of socket
 * the upgrade created. Import across folders only from here.
 *
 * Server-wide socket settings (Bun allows one set per server):
 * - backpressureLimit 1 MiB, closeOnBackpressureLimit false: writers stop at the first
 *   sign of backpressure and wait for `drain`, so Bun's own buffer holds little; the
 *   limit only bounds control replies to a client that sends but never reads.
 * - idleTimeout 120 s with pings: a peer that answers nothing for that long is dead and
 *   is closed. A slow reader answers pings and is never closed for being slow.
 * - maxPayloadLength 1 MiB for client frames; each kind applies its own smaller limit.
 */
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { NewsHub, NewsLogger } from "../actors/index.ts";
import type { CollabHandlers } from "./editor/handlers.ts";
import type { CollabSocketData } from "./editor/types.ts";
import { type NewsSocketData, newsStreamHandlers } from "./news/stream.ts";

export { type CollabHandlers, type CollabHandlersDeps, collabHandlers } from "./editor/handlers.ts";
export { CollabRevocations, type CollabRevocationsOptions } from "./editor/revocations.ts";
export {
  COLLAB_LIMITS,
  type CollabLimits,
  type CollabLogger,
  type CollabSocketData,
  type CollabSocketDeps,
  denialReason,
  isDocumentId,
} from "./editor/types.ts";
export { COLLAB_PATH, type CollabUpgradeDeps, handleCollabUpgrade, isCollabPath } from "./editor/upgrade.ts";
export { newsStreamGate } from "./news/gate.ts";
export {
  type ClientMessage,
  encodeControl,
  FILTER_LIMITS,
  parseClientMessage,
  type ServerControlMessage,
} from "./news/protocol.ts";
export type { NewsSocketData } from "./news/stream.ts";

/** Every kind of socket the server upgrades to. */
export type SocketData = NewsSocketData | CollabSocketData;

export type CairnServer = Server<SocketData>;

/** The service's socket settings, shared by every server that speaks its protocols (tests, bench). */
export const SOCKET_SETTINGS = {
  backpressureLimit: 1024 * 1024,
  closeOnBackpressureLimit: false,
  idleTimeout: 120,
  sendPings: true,
  maxPayloadLength: 1024 * 1024,
  perMessageDeflate: false,
} as const;

export function makeWebSocketHandler(deps: {
  newsHub: NewsHub;
  logger: NewsLogger;
  /** Collaboration sockets (spec 4.7, collabHandlers); without it none are upgraded. */
  collab?: CollabHandlers;
}): WebSocketHandler<SocketData> {
  const news = newsStreamHandlers(deps.newsHub, deps.logger);
  const collab = deps.collab ?? null;
  return {
    ...SOCKET_SETTINGS,
    // Bun types the socket by the union; each branch narrows it by `kind`.
    open: (ws) => (isCollab(ws) ? collab?.open(ws) : news.open(ws as ServerWebSocket<NewsSocketData>)),
    message: (ws, message) =>
      isCollab(ws) ? collab?.message(ws, message) : news.message(ws as ServerWebSocket<NewsSocketData>, message),
    drain: (ws) => (isCollab(ws) ? collab?.drain(ws) : news.drain(ws as ServerWebSocket<NewsSocketData>)),
    close: (ws, code, reason) =>
      isCollab(ws) ? collab?.close(ws, code, reason) : news.close(ws as ServerWebSocket<NewsSocketData>, code, reason),
    // A handler that throws must cost one connection's frame, never the process.
    error: (error, ws) =>
      deps.logger.error({ err: error, conn_id: ws.data.conn_id, kind: ws.data.kind }, "socket handler failed"),
  };
}

function isCollab(ws: ServerWebSocket<SocketData>): ws is ServerWebSocket<CollabSocketData> {
  return ws.data.kind === "collab";
}
