/** Bun socket handlers for collaboration sockets: each socket owns one CollabConnection. */
import type { ServerWebSocket } from "bun";
import type { AccessChange } from "../../domain/editor/ports.ts";
import { CollabConnection } from "./connection.ts";
import type { CollabRevocations } from "./revocations.ts";
import type { CollabSocketData, CollabSocketDeps } from "./types.ts";

export interface CollabHandlers {
  open(ws: ServerWebSocket<CollabSocketData>): void;
  message(ws: ServerWebSocket<CollabSocketData>, message: string | Buffer): void;
  drain(ws: ServerWebSocket<CollabSocketData>): void;
  close(ws: ServerWebSocket<CollabSocketData>, code: number, reason: string): void;
  /** Open collaboration sockets. */
  readonly size: number;
  /** Closes every open collaboration socket (shutdown: Bun's stop(false) waits for them). */
  closeAll(code: number, reason: string): void;
  /** Closes the sockets with a document of the tenant open (tenant deactivated); returns how many. */
  closeTenant(tenantId: string, code: number, reason: string): number;
  /** Re-checks the open documents an access change concerns (downgrade or close); returns how many. */
  recheck(change: AccessChange): number;
}

export interface CollabHandlersDeps extends CollabSocketDeps {
  /** Access changes of this and the other instances: every one is re-checked here. */
  revocations?: CollabRevocations;
}

export function collabHandlers(deps: CollabHandlersDeps): CollabHandlers {
  const open = new Set<ServerWebSocket<CollabSocketData>>();
  const handlers: CollabHandlers = {
    get size() {
      return open.size;
    },
    closeAll(code, reason) {
      for (const ws of [...open]) ws.close(code, reason);
    },
    closeTenant(tenantId, code, reason) {
      let n = 0;
      for (const ws of [...open]) {
        if (ws.data.conn?.hasTenant(tenantId) || ws.data.grant?.tenantId === tenantId) {
          ws.close(code, reason);
          n++;
        }
      }
      return n;
    },
    recheck(change) {
      let n = 0;
      for (const ws of open) n += ws.data.conn?.recheck(change) ?? 0;
      if (n > 0) {
        deps.logger.info(
          { tenant_id: change.tenantId, doc_id: change.docId, user_id: change.userId, documents: n },
          "re-checking collab access after an access change",
        );
      }
      return n;
    },
    open(ws) {
      open.add(ws);
      const conn = new CollabConnection(ws, deps);
      ws.data.conn = conn;
      conn.open();
    },
    message(ws, message) {
      if (typeof message === "string") {
        ws.close(1003, "collaboration frames are binary");
        return;
      }
      ws.data.conn?.message(message);
    },
    drain(ws) {
      ws.data.conn?.drain();
    },
    close(ws) {
      open.delete(ws);
      const conn = ws.data.conn;
      ws.data.conn = null;
      conn?.close();
    },
  };
  deps.revocations?.onChange((change) => handlers.recheck(change));
  return handlers;
}
