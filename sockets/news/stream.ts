/**
 * The news stream's socket handlers (spec 4.5, 6.1). Authentication, tenant status and
 * the rate limit were settled before the upgrade (http/routes/news/stream-routes.ts); here a
 * connection becomes a hub subscriber, and client frames become filter changes.
 *
 * Nothing the client sends closes the connection: malformed JSON and invalid filters
 * are answered with an error message and the previous filter stays in force (spec 7).
 */
import type { ServerWebSocket } from "bun";
import type { NewsHub, NewsLogger, NewsSink, NewsSubscriber } from "../../actors/index.ts";
import { CONNECTED_MESSAGE, encodeControl, parseClientMessage } from "./protocol.ts";

/** What the upgrade attaches to a news socket. */
export interface NewsSocketData {
  kind: "news";
  conn_id: string;
  tenant_id: string;
  user_id: number;
  request_id: string;
  /** Set in open(), cleared in close(). */
  sub: NewsSubscriber | null;
}

export interface NewsStreamHandlers {
  open(ws: ServerWebSocket<NewsSocketData>): void;
  message(ws: ServerWebSocket<NewsSocketData>, message: string | Buffer): void;
  drain(ws: ServerWebSocket<NewsSocketData>): void;
  close(ws: ServerWebSocket<NewsSocketData>, code: number, reason: string): void;
}

const BINARY_REFUSED = encodeControl({
  type: "error",
  message: "binary frames are not accepted: send the filter as a JSON text frame",
});

export function newsStreamHandlers(hub: NewsHub, logger: NewsLogger): NewsStreamHandlers {
  return {
    open(ws) {
      const d = ws.data;
      // The socket is the sink itself: no adapter object or closures per connection, and
      // one call less per frame on the fan-out's hot path.
      const sink: NewsSink = ws;
      const sub = hub.connect(sink, { conn_id: d.conn_id, tenant_id: d.tenant_id, user_id: d.user_id });
      if (!sub) {
        ws.close(1001, "server shutting down");
        return;
      }
      d.sub = sub;
      // Synchronous with connect(): no article can be written before this frame.
      sub.sendControl(encodeControl({ type: "connected", message: CONNECTED_MESSAGE }));
      logger.info({ conn_id: d.conn_id, tenant_id: d.tenant_id, user_id: d.user_id }, "news stream connected");
    },

    message(ws, message) {
      const sub = ws.data.sub;
      if (!sub) return;
      if (typeof message !== "string") {
        sub.sendControl(BINARY_REFUSED);
        return;
      }
      const parsed = parseClientMessage(message);
      if (!parsed.ok) {
        sub.sendControl(encodeControl({ type: "error", message: parsed.message }));
        return;
      }
      hub.setFilter(sub, parsed.filter);
      sub.sendControl(encodeControl({ type: "filter_applied", filter: parsed.filter }));
    },

    drain(ws) {
      ws.data.sub?.drain();
    },

    close(ws, code) {
      const d = ws.data;
      const sub = d.sub;
      if (!sub) return;
      d.sub = null;
      const { sent, dropped } = sub.stats();
      hub.disconnect(sub);
      logger.info(
        { conn_id: d.conn_id, tenant_id: d.tenant_id, user_id: d.user_id, code, sent, dropped },
        "news stream closed",
      );
    },
  };
}
