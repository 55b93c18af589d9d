/**
 * One collaboration WebSocket (spec 4.7), in either of two wire dialects:
 *
 * - Hocuspocus (`/v1/editor/collab`): every frame starts with a document address (a
 *   lib0 varString: the document UUID, or `uuid\0session` for session-aware providers),
 *   so one socket multiplexes documents. Each document authenticates on its own with an
 *   Auth/Token frame carrying the user JWT; the answer is Authenticated (scope `readonly`
 *   or `read-write`) or PermissionDenied (reason `<code>: <message>`). Frames for a
 *   document that arrive before its authentication completes are queued (bounded) and
 *   replayed after, as @hocuspocus/server does.
 * - y-websocket (`/v1/editor/collab/{doc_id}?token=<JWT>`): one document per socket,
 *   authorised before the upgrade; frames are bare y-protocols messages.
 *
 * A room that cannot be loaded refuses the connection with close code 1013 ("try again
 * later"): both client libraries reconnect with backoff, and no client ever syncs against
 * an empty stand-in for a document whose stored state could not be read.
 */
import type { ServerWebSocket } from "bun";
import * as decoding from "lib0/decoding";
import type { CollabPeer, CollabRoom, CollabRooms } from "../../actors/index.ts";
import {
  addressPrefix,
  authenticatedBody,
  framed,
  COLLAB_MSG as MSG,
  permissionDeniedBody,
} from "../../actors/index.ts";
import type { CollabAuthorizer, CollabGrant } from "../../domain/editor/ports.ts";
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
  /** Set in open(), cleared in close(). */
  conn: CollabConnection | null;
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
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isDocumentId(name: string): boolean {
  return UUID_RE.test(name);
}

/** The PermissionDenied reason for an error: `<code>: <message>` for ours, a generic one otherwise. */
export function denialReason(err: unknown): string {
  return err instanceof AppError ? `${err.code}: ${err.message}` : "forbidden: permission denied";
}

interface Session {
  address: string;
  docId: string;
  tenantId: string | null;
  state: "waiting" | "authorizing" | "open" | "closed";
  queue: Uint8Array[];
  queueBytes: number;
  peer: CollabPeer | null;
  room: CollabRoom | null;
}

const PONG = new Uint8Array([MSG.pong]);

export class CollabConnection {
  private readonly sessions = new Map<string, Session>();
  private readonly limits: CollabLimits;
  private authTimer: ReturnType<typeof setTimeout> | undefined;
  private authenticatedOnce = false;
  private closed = false;

  constructor(
    private readonly ws: ServerWebSocket<CollabSocketData>,
    private readonly deps: CollabSocketDeps,
  ) {
    this.limits = { ...COLLAB_LIMITS, ...deps.limits };
  }

  open(): void {
    const d = this.ws.data;
    if (d.dialect === "y-websocket" && d.docId && d.grant) {
      const s = this.newSession(d.docId, d.docId);
      this.joinRoom(s, d.grant);
      return;
    }
    this.authTimer = setTimeout(() => {
      if (!this.authenticatedOnce) this.ws.close(4408, "authentication timeout");
    }, this.limits.authTimeoutMs);
  }

  message(data: Uint8Array): void {
    if (this.closed) return;
    if (this.ws.data.dialect === "y-websocket") {
      const s = this.sessions.values().next().value as Session | undefined;
      if (s) this.deliver(s, data);
      return;
    }
    // Connection-level Ping/Pong of newer providers: one type byte, no address.
    if (data.length === 1 && (data[0] === MSG.ping || data[0] === MSG.pong)) {
      if (data[0] === MSG.ping) this.ws.send(PONG);
      return;
    }
    let address: string;
    let body: Uint8Array;
    let type: number;
    try {
      const dec = decoding.createDecoder(data);
      address = decoding.readVarString(dec);
      body = data.subarray(dec.pos);
      type = decoding.readVarUint(dec);
      let s = this.sessions.get(address);
      if (!s) {
        if (this.sessions.size >= this.limits.maxDocumentsPerSocket) {
          this.ws.close(1008, `more than ${this.limits.maxDocumentsPerSocket} documents on one socket`);
          return;
        }
        const sep = address.indexOf("\0");
        s = this.newSession(address, sep === -1 ? address : address.slice(0, sep));
      }
      if (type === MSG.auth && s.state === "waiting") {
        const authType = decoding.readVarUint(dec);
        const token = authType === 0 ? decoding.readVarString(dec) : "";
        this.authenticate(s, token);
        return;
      }
      if (type === MSG.close) {
        this.endSession(s);
        return;
      }
      if (type === MSG.auth) return; // a token refresh on an open document: nothing to do
      this.deliver(s, body);
    } catch {
      this.ws.close(1007, "malformed collaboration message");
    }
  }

  /** Whether any open document of this socket belongs to the tenant. */
  hasTenant(tenantId: string): boolean {
    for (const s of this.sessions.values()) if (s.tenantId === tenantId) return true;
    return false;
  }

  drain(): void {
    for (const s of this.sessions.values()) {
      if (s.room && s.peer) s.room.drain(s.peer);
    }
  }

  close(): void {
    this.closed = true;
    if (this.authTimer) clearTimeout(this.authTimer);
    for (const s of this.sessions.values()) this.endSession(s);
  }

  private newSession(address: string, docId: string): Session {
    const s: Session = {
      address,
      tenantId: null,
      docId: docId.toLowerCase(),
      state: "waiting",
      queue: [],
      queueBytes: 0,
      peer: null,
      room: null,
    };
    this.sessions.set(address, s);
    return s;
  }

  private endSession(s: Session): void {
    if (s.room && s.peer) s.room.leave(s.peer);
    s.state = "closed";
    s.queue = [];
    s.room = null;
    this.sessions.delete(s.address);
  }

  /** Hands a frame to the room, or queues it while the document authenticates or loads. */
  private deliver(s: Session, body: Uint8Array): void {
    if (s.state === "open" && s.room && s.peer) {
      if (!s.room.post(s.peer, body)) this.ws.close(1013, "document overloaded; retry later");
      return;
    }
    if (s.state === "closed") return;
    if (
      s.queue.length + 1 > this.limits.maxQueuedFrames ||
      s.queueBytes + body.byteLength > this.limits.maxQueuedBytes
    ) {
      this.ws.close(1009, "too much data before authentication");
      return;
    }
    // Bun reuses nothing it hands us, but a subarray pins the whole frame: copy the body.
    s.queue.push(body.slice());
    s.queueBytes += body.byteLength;
  }

  private authenticate(s: Session, token: string): void {
    s.state = "authorizing";
    const reply = (body: Uint8Array) => this.ws.send(framed(addressPrefix(s.address), body));
    if (!isDocumentId(s.docId)) {
      reply(permissionDeniedBody("not_found: the document name must be a document UUID"));
      this.sessions.delete(s.address);
      return;
    }
    this.deps.authorizer.authorize(token, s.docId).then(
      (grant) => {
        if (this.closed || s.state !== "authorizing") return;
        this.authenticatedOnce = true;
        this.joinRoom(s, grant);
      },
      (err: unknown) => {
        if (this.closed || s.state !== "authorizing") return;
        if (!(err instanceof AppError)) {
          this.deps.logger.error(
            { err, conn_id: this.ws.data.conn_id, doc_id: s.docId },
            "collab authorization failed",
          );
        }
        reply(permissionDeniedBody(denialReason(err)));
        // A retry on this socket starts from scratch, as a first attempt.
        this.sessions.delete(s.address);
      },
    );
  }

  private joinRoom(s: Session, grant: CollabGrant): void {
    const d = this.ws.data;
    const hocuspocus = d.dialect === "hocuspocus";
    this.deps.rooms.room(s.docId).then(
      (room) => {
        if (this.closed || s.state === "closed") return;
        const prefix = hocuspocus ? addressPrefix(s.address) : null;
        const ws = this.ws;
        const peer: CollabPeer = {
          id: `${d.conn_id}/${s.address}`,
          address: hocuspocus ? s.address : null,
          prefix,
          readOnly: grant.readOnly,
          hocuspocus,
          by: { updated_by_type: "user", updated_by_id: String(grant.userId) },
          send: (frame) => ws.send(frame),
          close: (code, reason) => ws.close(code, reason),
        };
        if (hocuspocus) ws.send(framed(prefix, authenticatedBody(grant.readOnly)));
        s.peer = peer;
        s.room = room;
        s.tenantId = grant.tenantId;
        s.state = "open";
        room.join(peer);
        const queued = s.queue;
        s.queue = [];
        s.queueBytes = 0;
        for (const body of queued) this.deliver(s, body);
        this.deps.logger.info(
          { conn_id: d.conn_id, doc_id: s.docId, user_id: grant.userId, read_only: grant.readOnly, dialect: d.dialect },
          "collab document opened",
        );
      },
      (err: unknown) => {
        if (this.closed) return;
        this.deps.logger.error({ err, conn_id: d.conn_id, doc_id: s.docId }, "collab room could not be loaded");
        this.ws.close(1013, "document unavailable; retry later");
      },
    );
  }
}
