/**
 * The shapes shared by the collaboration socket modules: what an upgrade attaches to a
 * socket, the connection's dependencies and limits, and document-name checks.
 */
import type { CollabRooms } from "../../actors/index.ts";
import type { AccessChange, CollabAuthorizer, CollabGrant } from "../../domain/editor/ports.ts";
import { AppError } from "../../domain/errors.ts";

export interface CollabLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the upgrade attaches to a collaboration socket. */
export interface CollabSocketData {
  kind: "collab";
  conn_id: string;
  request_id: string;
  dialect: "hocuspocus" | "y-websocket";
  /** y-websocket only: the document and the grant settled before the upgrade. */
  docId: string | null;
  grant: CollabGrant | null;
  /** y-websocket only: the token the grant came from (re-checked on access changes, expiry). */
  token: string | null;
  /** Set in open(), cleared in close(). */
  conn: SocketSession | null;
}

/** What the socket handlers drive on a connection (connection.ts implements it). */
export interface SocketSession {
  open(): void;
  message(data: Uint8Array): void;
  drain(): void;
  close(): void;
  hasTenant(tenantId: string): boolean;
  /** Re-checks access after `change`; returns how many documents it re-asked for. */
  recheck(change: AccessChange): number;
}

export interface CollabLimits {
  /** Documents one Hocuspocus socket may have open or authenticating at once. */
  maxDocumentsPerSocket: number;
  /** Frames queued per document while it authenticates or loads (count, bytes). */
  maxQueuedFrames: number;
  maxQueuedBytes: number;
  /** A socket with no authenticated document after this long is closed (4408). */
  authTimeoutMs: number;
}

export const COLLAB_LIMITS: CollabLimits = {
  maxDocumentsPerSocket: 32,
  maxQueuedFrames: 1_000,
  maxQueuedBytes: 4 * 1024 * 1024,
  authTimeoutMs: 30_000,
};

export interface CollabSocketDeps {
  rooms: CollabRooms;
  authorizer: CollabAuthorizer;
  logger: CollabLogger;
  limits?: Partial<CollabLimits>;
  /** The clock tokens expire against (epoch ms); tests move it past an expiry. */
  now?: () => number;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isDocumentId(name: string): boolean {
  return UUID_RE.test(name);
}

/** The PermissionDenied reason for an error: `<code>: <message>` for ours, a generic one otherwise. */
export function denialReason(err: unknown): string {
  return err instanceof AppError ? `${err.code}: ${err.message}` : "forbidden: permission denied";
}
