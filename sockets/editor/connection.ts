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
 *
 * Access is re-checked after the connection opened (issue 13): each document remembers its
 * token's `exp`; at expiry the socket closes with 4401, and every incoming frame checks the
 * clock too, so nothing received after expiry reaches a room even before the timer fires.
 * An access change (recheck) holds the documents it concerns (their frames queue), asks
 * the authoriser again with the same token, then downgrades a lost write right in place
 * (Hocuspocus is told with a new Authenticated "readonly") or closes the socket with the
 * refusal's close code (4403 forbidden, 4404 gone, 4401 token no longer valid). A Hocuspocus
 * Auth/Token frame on a granted document is a refresh: the same check with the new token,
 * which then replaces the old one (and its expiry) if it is the same user's.
 */
import type { ServerWebSocket } from "bun";
import * as decoding from "lib0/decoding";
import type { CollabPeer, CollabRoom } from "../../actors/index.ts";
import {
  addressPrefix,
  authenticatedBody,
  framed,
  COLLAB_MSG as MSG,
  permissionDeniedBody,
} from "../../actors/index.ts";
import type { AccessChange, CollabGrant } from "../../domain/editor/ports.ts";
import { AppError } from "../../domain/errors.ts";
import { closeReason, concerns, MAX_TIMER_MS, TOKEN_EXPIRED, tokenExpiry } from "./access.ts";
import {
  COLLAB_LIMITS,
  type CollabLimits,
  type CollabSocketData,
  type CollabSocketDeps,
  denialReason,
  isDocumentId,
  type SocketSession,
} from "./types.ts";

interface Session {
  address: string;
  docId: string;
  tenantId: string | null;
  state: "waiting" | "authorizing" | "open" | "closed";
  queue: Uint8Array[];
  queueBytes: number;
  peer: CollabPeer | null;
  room: CollabRoom | null;
  /** The credential and what it was granted: re-checked on access changes. */
  token: string;
  grant: CollabGrant | null;
  /** When the token expires (epoch ms); null: it carries no expiry. */
  expiresAt: number | null;
  /** The generation of the access re-check in flight (frames queue meanwhile); 0: none. */
  checking: number;
  checkGen: number;
  /** An access change arrived while the first authorisation was in flight: authorise again. */
  authStale: boolean;
}

const PONG = new Uint8Array([MSG.pong]);

/** Whether `data` starts with `prefix` (a document address, ~37 bytes). */
function hasPrefix(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length <= prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

export class CollabConnection implements SocketSession {
  private readonly sessions = new Map<string, Session>();
  /** The open document the last frame was for (the address fast path in `message`). */
  private lastOpen: Session | null = null;
  private readonly limits: CollabLimits;
  private authTimer: ReturnType<typeof setTimeout> | undefined;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The earliest expiry among the documents' tokens (epoch ms), or null. */
  private expiresAt: number | null = null;
  private authenticatedOnce = false;
  private closed = false;
  private readonly now: () => number;

  constructor(
    private readonly ws: ServerWebSocket<CollabSocketData>,
    private readonly deps: CollabSocketDeps,
  ) {
    this.limits = { ...COLLAB_LIMITS, ...deps.limits };
    this.now = deps.now ?? Date.now;
  }

  open(): void {
    const d = this.ws.data;
    if (d.dialect === "y-websocket" && d.docId && d.grant) {
      const s = this.newSession(d.docId, d.docId);
      s.token = d.token ?? "";
      s.grant = d.grant;
      s.expiresAt = tokenExpiry(s.token);
      this.armExpiry();
      this.joinRoom(s);
      return;
    }
    this.authTimer = setTimeout(() => {
      if (!this.authenticatedOnce) this.ws.close(4408, "authentication timeout");
    }, this.limits.authTimeoutMs);
  }

  message(data: Uint8Array): void {
    if (this.closed || this.expireIfDue()) return;
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
    // Hot path: a frame for the document this socket last wrote to, already open, is
    // recognised by its address bytes (no string decoded, no map lookup) and handed on.
    const last = this.lastOpen;
    if (last !== null && last.state === "open" && last.peer?.prefix && hasPrefix(data, last.peer.prefix)) {
      const first = data[last.peer.prefix.length];
      if (first !== MSG.auth && first !== MSG.close) {
        this.deliver(last, data.subarray(last.peer.prefix.length));
        return;
      }
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
      if (s.state === "open") this.lastOpen = s;
      if (type === MSG.auth) {
        // A token sent again on a granted document (provider.sendToken()): a refresh.
        if (s.grant && decoding.readVarUint(dec) === 0) this.recheckSession(s, decoding.readVarString(dec));
        return;
      }
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
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    for (const s of this.sessions.values()) this.endSession(s);
  }

  /**
   * Re-checks the documents an access change concerns; returns how many. Their frames
   * queue until the authoriser answers, so none slips through on a right just revoked.
   */
  recheck(change: AccessChange): number {
    if (this.closed) return 0;
    let n = 0;
    for (const s of this.sessions.values()) {
      if (s.state === "closed") continue;
      if (!s.grant) {
        // Still authorising: its answer may predate the change, so it is asked again.
        if (s.state === "authorizing" && (change.docId === null || change.docId === s.docId)) s.authStale = true;
        continue;
      }
      if (!concerns(change, s.docId, s.grant)) continue;
      n++;
      this.recheckSession(s);
    }
    return n;
  }

  /** Asks the authoriser again, with the session's token or a refreshed one; frames wait meanwhile. */
  private recheckSession(s: Session, token = s.token): void {
    const gen = ++s.checkGen;
    s.checking = gen;
    this.deps.authorizer.authorize(token, s.docId).then(
      (grant) => {
        if (this.closed || s.state === "closed" || s.checking !== gen) return;
        const was = s.grant;
        if (token !== s.token && !this.takeRefresh(s, token, grant)) return;
        s.checking = 0;
        s.grant = grant;
        if (s.peer && s.peer.readOnly !== grant.readOnly) {
          s.peer.readOnly = grant.readOnly;
          // Hocuspocus providers take a later Authenticated as the new scope.
          if (s.peer.hocuspocus) this.ws.send(framed(s.peer.prefix, authenticatedBody(grant.readOnly)));
        }
        if (was?.readOnly !== grant.readOnly) {
          this.deps.logger.info(
            { conn_id: this.ws.data.conn_id, doc_id: s.docId, user_id: grant.userId, read_only: grant.readOnly },
            "collab access changed on an open document",
          );
        }
        if (s.state === "open") this.flushQueue(s);
      },
      (err: unknown) => {
        if (this.closed || s.state === "closed" || s.checking !== gen) return;
        const log = { err, conn_id: this.ws.data.conn_id, doc_id: s.docId, user_id: s.grant?.userId };
        if (err instanceof AppError) {
          this.deps.logger.info(log, "collab access revoked; closing the connection");
          this.shut(err.closeCode, closeReason(`${err.code}: ${err.message}`));
        } else {
          // Fail closed: a client that reconnects is authorised from scratch.
          this.deps.logger.error(log, "collab access could not be re-checked; closing the connection");
          this.shut(1013, "access could not be re-checked; reconnect");
        }
      },
    );
  }

  /**
   * A refreshed token replaces the session's (and its expiry) when it is the same user's
   * and not already expired; otherwise the socket closes. Hocuspocus hears the scope again.
   */
  private takeRefresh(s: Session, token: string, grant: CollabGrant): boolean {
    const expiresAt = tokenExpiry(token);
    if (s.grant && grant.userId !== s.grant.userId) {
      this.shut(4403, "forbidden: a refreshed token must be the same user's");
      return false;
    }
    if (expiresAt !== null && expiresAt <= this.now()) {
      this.shut(TOKEN_EXPIRED.code, TOKEN_EXPIRED.reason);
      return false;
    }
    s.token = token;
    s.expiresAt = expiresAt;
    this.armExpiry();
    if (s.peer?.hocuspocus && s.peer.readOnly === grant.readOnly) {
      this.ws.send(framed(s.peer.prefix, authenticatedBody(grant.readOnly)));
    }
    return true;
  }

  /** Closes the socket now and ignores whatever it still sends. */
  private shut(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.close(code, reason);
  }

  /** The earliest token of this socket expired: close with 4401 (true), before applying anything. */
  private expireIfDue(): boolean {
    if (this.expiresAt === null || this.now() < this.expiresAt) return false;
    this.deps.logger.info({ conn_id: this.ws.data.conn_id }, "collab token expired; closing the connection");
    this.shut(TOKEN_EXPIRED.code, TOKEN_EXPIRED.reason);
    return true;
  }

  /** (Re)arms the expiry timer for the earliest token of the socket. */
  private armExpiry(): void {
    let earliest: number | null = null;
    for (const s of this.sessions.values()) {
      if (s.expiresAt !== null && (earliest === null || s.expiresAt < earliest)) earliest = s.expiresAt;
    }
    this.expiresAt = earliest;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    if (earliest === null || this.closed) return;
    const wait = Math.min(Math.max(0, earliest - this.now()), MAX_TIMER_MS);
    // A timer may fire a little early, or before a long wait is over: check, then re-arm.
    this.expiryTimer = setTimeout(() => {
      if (!this.expireIfDue()) this.armExpiry();
    }, wait);
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
      token: "",
      grant: null,
      expiresAt: null,
      checking: 0,
      checkGen: 0,
      authStale: false,
    };
    this.sessions.set(address, s);
    return s;
  }

  private endSession(s: Session): void {
    if (this.lastOpen === s) this.lastOpen = null;
    if (s.room && s.peer) s.room.leave(s.peer);
    s.state = "closed";
    s.queue = [];
    s.room = null;
    this.sessions.delete(s.address);
    if (s.expiresAt !== null && !this.closed) this.armExpiry();
  }

  private flushQueue(s: Session): void {
    const queued = s.queue;
    s.queue = [];
    s.queueBytes = 0;
    for (const body of queued) this.deliver(s, body);
  }

  /** Hands a frame to the room, or queues it while the document authenticates or loads. */
  private deliver(s: Session, body: Uint8Array): void {
    if (s.state === "open" && s.checking === 0 && s.room && s.peer) {
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
    s.authStale = false;
    const reply = (body: Uint8Array) => this.ws.send(framed(addressPrefix(s.address), body));
    if (!isDocumentId(s.docId)) {
      reply(permissionDeniedBody("not_found: the document name must be a document UUID"));
      this.sessions.delete(s.address);
      return;
    }
    this.deps.authorizer.authorize(token, s.docId).then(
      (grant) => {
        if (this.closed || s.state !== "authorizing") return;
        if (s.authStale) {
          this.authenticate(s, token); // an access change arrived meanwhile: ask again
          return;
        }
        const expiresAt = tokenExpiry(token);
        if (expiresAt !== null && expiresAt <= this.now()) {
          // Still inside the verifier's clock tolerance, but past `exp`: no session to open.
          reply(permissionDeniedBody("unauthenticated: Token has expired"));
          this.sessions.delete(s.address);
          return;
        }
        this.authenticatedOnce = true;
        s.token = token;
        s.grant = grant;
        s.expiresAt = expiresAt;
        this.armExpiry();
        this.joinRoom(s);
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

  /** Joins the document's room with the session's grant (the latest, if re-checked meanwhile). */
  private joinRoom(s: Session): void {
    const d = this.ws.data;
    const hocuspocus = d.dialect === "hocuspocus";
    this.deps.rooms.room(s.docId).then(
      (room) => {
        if (this.closed || s.state === "closed" || !s.grant) return;
        const grant = s.grant;
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
        // A re-check in flight flushes the queue when it answers.
        if (s.checking === 0) this.flushQueue(s);
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
