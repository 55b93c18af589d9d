/**
 * The collaboration WebSocket endpoints (spec 4.7, 5):
 *
 * - `GET /v1/editor/collab` — Hocuspocus protocol (@hocuspocus/provider, Tiptap). The
 *   handshake carries no credentials; each document on the socket authenticates with the
 *   user JWT in the provider's `token`.
 * - `GET /v1/editor/collab/{doc_id}?token=<JWT>` — plain y-websocket clients
 *   (`new WebsocketProvider(".../v1/editor/collab", docId, doc, { params: { token } })`).
 *   The JWT may also come as `Authorization: Bearer`. It is checked before the upgrade:
 *   a refused token answers 401/403/404 with the usual error body, and no socket opens.
 *
 * The token is always the user JWT; an API key is not a JWT and is refused (401).
 */
import type { Server } from "bun";
import type { CollabAuthorizer } from "../../domain/editor/ports.ts";
import { AppError } from "../../domain/errors.ts";
import { tokenExpiry } from "./access.ts";
import { type CollabSocketData, isDocumentId } from "./types.ts";

export const COLLAB_PATH = "/v1/editor/collab";

export interface CollabUpgradeDeps {
  authorizer: CollabAuthorizer;
  /** True while the service shuts down: new sockets are refused with 503. */
  draining?: () => boolean;
}

function errorResponse(err: AppError, requestId: string): Response {
  return new Response(JSON.stringify(err.toBody()), {
    status: err.status,
    headers: { "Content-Type": "application/json", "X-Request-Id": requestId, ...err.headers },
  });
}

/** The request is for a collaboration endpoint (the caller then answers with handleCollabUpgrade). */
export function isCollabPath(pathname: string): boolean {
  return pathname === COLLAB_PATH || pathname.startsWith(`${COLLAB_PATH}/`);
}

/**
 * Upgrades a collaboration request. Resolves undefined once Bun has taken the socket
 * over (Bun then ignores the response), or an error response.
 */
export async function handleCollabUpgrade(
  req: Request,
  server: unknown,
  deps: CollabUpgradeDeps,
): Promise<Response | undefined> {
  const requestId = req.headers.get("x-request-id") ?? crypto.randomUUID();
  try {
    const url = new URL(req.url);
    if (req.method !== "GET") throw new AppError("not_found", "Not found");
    if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError(
        "upgrade_required",
        "This endpoint speaks WebSocket only (send Upgrade: websocket)",
        undefined,
        {
          Upgrade: "websocket",
        },
      );
    }
    if (deps.draining?.())
      throw new AppError("unavailable", "The server is shutting down; reconnect to another instance");
    if (!isBunServer(server)) throw new AppError("upgrade_required", "WebSocket upgrades need the HTTP server");
    const data: CollabSocketData = {
      kind: "collab",
      conn_id: crypto.randomUUID(),
      request_id: requestId,
      dialect: "hocuspocus",
      docId: null,
      grant: null,
      token: null,
      conn: null,
    };
    const rest = url.pathname.slice(COLLAB_PATH.length + 1);
    if (url.pathname !== COLLAB_PATH) {
      const docId = decodeURIComponent(rest);
      if (!isDocumentId(docId)) throw new AppError("not_found", "The room name must be a document UUID");
      const bearer = req.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
      const token = url.searchParams.get("token") ?? bearer;
      if (!token) throw new AppError("unauthenticated", "Missing token: pass the user JWT as ?token=<JWT>");
      data.dialect = "y-websocket";
      data.docId = docId.toLowerCase();
      data.grant = await deps.authorizer.authorize(token, data.docId);
      // Inside the verifier's clock tolerance but past `exp`: the socket would close at once.
      const expiresAt = tokenExpiry(token);
      if (expiresAt !== null && expiresAt <= Date.now()) throw new AppError("unauthenticated", "Token has expired");
      data.token = token;
    }
    if (!server.upgrade(req, { data, headers: { "X-Request-Id": requestId } })) {
      throw new AppError("upgrade_required", "The WebSocket handshake was refused (check its headers)", undefined, {
        Upgrade: "websocket",
      });
    }
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return errorResponse(err, requestId);
    throw err;
  }
}

function isBunServer(x: unknown): x is Server<CollabSocketData> {
  return typeof x === "object" && x !== null && "upgrade" in x && typeof x.upgrade === "function";
}
