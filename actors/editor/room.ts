/**
 * One collaboration room (spec 2.12, 4.7): the actor that owns a document's Y.Doc and
 * awareness. Client frames, messages from other instances and server-side edits queue in
 * its bounded mailbox and are handled one at a time; joins, leaves and drains are
 * synchronous calls (they must never be refused).
 *
 * Fan-out (STYLE habit 9): every update applied during a tick is collected, merged once
 * at the end of the tick (setImmediate), encoded once and framed once per address, then
 * written to every connection. A connection whose socket reports backpressure is skipped
 * from then on and remembers the state vector it had reached; on `drain` it receives
 * exactly the difference, so a slow reader costs memory in nobody's buffer and never
 * loses an update. Awareness follows the same path.
 *
 * Multi-instance: with a PubSub, the room publishes its local updates and awareness per
 * tick on the document's channel and applies what other instances publish; on load it
 * asks them for whatever it lacks (state-vector exchange), since their last save may be
 * behind their memory.
 */
import * as decoding from "lib0/decoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as Y from "yjs";
import type { UpdatedBy } from "../../domain/editor/types.ts";
import { Actor, type Reply } from "../actor.ts";
import {
  awarenessBody,
  FrameCache,
  framed,
  MSG,
  SYNC,
  syncStatusBody,
  syncStep1Body,
  syncStep2Body,
  updateBody,
} from "./frames.ts";
import { DebouncedSaver } from "./saver.ts";
import type { CollabPeer, RoomDeps, RoomOptions } from "./types.ts";
import { ROOM_DEFAULTS } from "./types.ts";

/** What rooms of one document on different instances tell each other (JSON on the channel). */
type Wire =
  | { i: string; t: "u"; d: string }
  | { i: string; t: "a"; d: string }
  | { i: string; t: "sv"; d: string; r: boolean };

type RoomMessage =
  | { t: "frame"; peer: CollabPeer; data: Uint8Array }
  | { t: "remote"; wire: Wire }
  | { t: "edit"; origin: unknown; fn: (doc: Y.Doc) => void; by: UpdatedBy | undefined; reply: Reply<void> };

interface PeerState {
  peer: CollabPeer;
  /** Skipped by broadcasts since its socket pushed back; sv null = send the whole state. */
  behind: { sv: Uint8Array | null } | null;
  /** Awareness client ids this connection controls (removed when it leaves). */
  awarenessIds: Set<number>;
  /** Hocuspocus: the framed "update applied" acknowledgement, built on first use. */
  ack?: Uint8Array;
}

/** Origin of updates and awareness that came from another instance: never re-published. */
const REMOTE = Symbol("collab-remote");
/** Origin of the stored state applied at load. */
const STORE = Symbol("collab-store");
/** A tick whose updates came from several origins. */
const MIXED = Symbol("collab-mixed");

const toB64 = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString("base64");
const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

export class CollabRoom {
  readonly doc = new Y.Doc({ gc: true });
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  private readonly actor: Actor<RoomMessage, CollabRoom>;
  private readonly saver: DebouncedSaver;
  private readonly peers = new Map<CollabPeer, PeerState>();
  /** Server-side callers (LiveRooms.withDoc) holding the room open. */
  private leases = 0;
  private pendingUpdates: Uint8Array[] = [];
  private publishUpdates: Uint8Array[] = [];
  private pendingAwareness = new Set<number>();
  private publishAwareness = new Set<number>();
  private tickScheduled = false;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  /** The origin shared by every update of this tick, or MIXED. */
  private tickOrigin: unknown = MIXED;
  /** Updates applied so far: tells an edit that changed something from one that did not. */
  private updatesSeen = 0;
  private lastEditor: UpdatedBy = { updated_by_type: "system", updated_by_id: "collab" };
  private unsubscribe: (() => Promise<void>) | undefined;
  private destroyed = false;

  private constructor(
    readonly docId: string,
    private readonly deps: RoomDeps,
    private readonly opts: RoomOptions,
  ) {
    // The server is no participant: it must not announce a presence of its own.
    this.awareness.setLocalState(null);
    this.saver = new DebouncedSaver({
      debounceMs: opts.debounceMs,
      maxWaitMs: opts.maxWaitMs,
      retryMs: 500,
      maxRetryMs: 30_000,
      save: () => this.save(),
      onError: (err, failures) =>
        deps.logger.error({ err, doc_id: docId, failures }, "collab room: saving the document failed; will retry"),
    });
    this.actor = new Actor<RoomMessage, CollabRoom>({
      name: `collab-room:${docId}`,
      mailbox: {
        maxCount: opts.mailboxMaxCount,
        maxBytes: opts.mailboxMaxBytes,
        sizeOf: (m) => (m.t === "frame" ? m.data.byteLength + 64 : m.t === "remote" ? m.wire.d.length + 64 : 256),
        policy: "reject",
        onDiscard: (m) => {
          if (m.t === "edit") m.reply.reject(new Error(`collab room ${docId} closed before the edit ran`));
        },
      },
      init: () => this,
      handle: (room, m) => room.handle(m),
      onEvent: (e) => {
        if (e.type === "handler_failed") {
          deps.logger.error({ err: e.error, doc_id: docId }, "collab room handler failed");
          if (e.message.t === "edit") e.message.reply.reject(e.error);
        }
      },
    });
    this.doc.on("update", (update: Uint8Array, origin: unknown) => this.onDocUpdate(update, origin));
    this.awareness.on("update", (changes: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) =>
      this.onAwarenessUpdate(changes, origin),
    );
  }

  /**
   * Loads the stored state; a failed load throws and no room exists (a room built on an
   * empty document would later overwrite the stored one).
   */
  static async load(docId: string, deps: RoomDeps, opts: RoomOptions = ROOM_DEFAULTS): Promise<CollabRoom> {
    const state = await deps.persistence.load(docId);
    const room = new CollabRoom(docId, deps, opts);
    if (state && state.byteLength > 0) Y.applyUpdate(room.doc, state, STORE);
    // The stored state is not a change: nothing to broadcast or save.
    room.pendingUpdates = [];
    room.publishUpdates = [];
    if (deps.pubsub) {
      try {
        room.unsubscribe = await deps.pubsub.subscribe(deps.channel, (text) => room.onWire(text));
      } catch (err) {
        room.destroyNow();
        throw err;
      }
      room.publish({ i: deps.instanceId, t: "sv", d: toB64(Y.encodeStateVector(room.doc)), r: true });
    }
    return room;
  }

  get peerCount(): number {
    return this.peers.size;
  }

  /** No clients, no server-side caller, nothing queued: the registry may unload it. */
  get idle(): boolean {
    return this.peers.size === 0 && this.leases === 0 && this.actor.idle && !this.tickScheduled;
  }

  get dirty(): boolean {
    return this.saver.dirty;
  }

  /** Adds a connection; y-websocket peers get the server's step 1 and the current awareness. */
  join(peer: CollabPeer): void {
    const ps: PeerState = { peer, behind: null, awarenessIds: new Set() };
    this.peers.set(peer, ps);
    if (!peer.hocuspocus) this.sendTo(ps, framed(peer.prefix, syncStep1Body(this.doc)));
    if (this.awareness.getStates().size > 0) {
      this.sendTo(ps, framed(peer.prefix, awarenessBody(this.awareness, [...this.awareness.getStates().keys()])));
    }
  }

  /** Removes a connection and the awareness states it controlled. Idempotent. */
  leave(peer: CollabPeer): void {
    const ps = this.peers.get(peer);
    if (!ps) return;
    this.peers.delete(peer);
    if (ps.awarenessIds.size > 0) {
      awarenessProtocol.removeAwarenessStates(this.awareness, [...ps.awarenessIds], null);
    }
  }

  /** The peer's socket drained: catch it up on what it was skipped for. */
  drain(peer: CollabPeer): void {
    const ps = this.peers.get(peer);
    if (!ps?.behind) return;
    const { sv } = ps.behind;
    ps.behind = null;
    this.sendTo(ps, framed(peer.prefix, updateBody(Y.encodeStateAsUpdate(this.doc, sv ?? undefined))));
    const ids = [...this.awareness.getStates().keys()];
    if (ids.length > 0) this.sendTo(ps, framed(peer.prefix, awarenessBody(this.awareness, ids)));
  }

  /** Queues a client frame (the body after any address); false when the mailbox refused it. */
  post(peer: CollabPeer, data: Uint8Array): boolean {
    return this.actor.post({ t: "frame", peer, data });
  }

  /** Runs fn on the document in one transaction; resolves once persisted. */
  async edit(origin: unknown, fn: (doc: Y.Doc) => void, by?: UpdatedBy): Promise<void> {
    this.leases++;
    try {
      await this.actor.ask<void>((reply) => ({ t: "edit", origin, fn, by, reply }));
      await this.saver.flush();
    } finally {
      this.leases--;
    }
  }

  /** Saves now if anything is unsaved; rejects when the store fails. */
  flush(): Promise<void> {
    return this.saver.flush();
  }

  /**
   * The final flush, then teardown. A failed flush is retried `attempts` times; after
   * that the room is torn down anyway (shutdown) and the loss is reported.
   */
  async close(attempts = 3): Promise<void> {
    if (this.destroyed) return;
    await this.actor.stop({ mode: "drain" });
    this.flushTick();
    for (let i = 1; ; i++) {
      try {
        await this.saver.flush();
        break;
      } catch (err) {
        if (i >= attempts) {
          this.deps.logger.error({ err, doc_id: this.docId }, "collab room: giving up on saving before unload");
          break;
        }
        await Bun.sleep(200 * i);
      }
    }
    for (const ps of this.peers.values()) ps.peer.close(1001, "document unloaded");
    this.peers.clear();
    this.destroyNow();
  }

  private destroyNow(): void {
    this.destroyed = true;
    this.saver.close();
    void this.actor.stop({ mode: "abandon" });
    const unsub = this.unsubscribe;
    this.unsubscribe = undefined;
    unsub?.().catch((err) => this.deps.logger.warn({ err, doc_id: this.docId }, "collab room: unsubscribe failed"));
    this.awareness.destroy();
    this.doc.destroy();
  }

  private handle(m: RoomMessage): void {
    switch (m.t) {
      case "frame":
        this.handleFrame(m.peer, m.data);
        break;
      case "remote":
        this.handleRemote(m.wire);
        break;
      case "edit":
        try {
          const before = this.updatesSeen;
          this.doc.transact(() => m.fn(this.doc), m.origin);
          if (m.by && this.updatesSeen !== before) this.lastEditor = m.by;
          m.reply.resolve();
        } catch (err) {
          m.reply.reject(err);
        }
        break;
    }
  }

  private handleFrame(peer: CollabPeer, data: Uint8Array): void {
    const ps = this.peers.get(peer);
    try {
      const dec = decoding.createDecoder(data);
      const type = decoding.readVarUint(dec);
      if (type === MSG.sync) {
        this.handleSync(peer, ps, dec);
      } else if (type === MSG.awareness) {
        // A connection that already left must not bring its presence back.
        if (ps) awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(dec), ps);
      } else if (type === MSG.queryAwareness) {
        if (ps)
          this.sendTo(ps, framed(peer.prefix, awarenessBody(this.awareness, [...this.awareness.getStates().keys()])));
      }
      // auth (re-sent tokens), stateless and pong frames carry nothing a room acts on.
    } catch (err) {
      this.deps.logger.warn(
        { err, doc_id: this.docId, peer: peer.id },
        "collab room: malformed frame; closing the connection",
      );
      peer.close(1007, "malformed collaboration message");
    }
  }

  private handleSync(peer: CollabPeer, ps: PeerState | undefined, dec: decoding.Decoder): void {
    const sub = decoding.readVarUint(dec);
    if (sub === SYNC.step1) {
      if (!ps) return;
      const sv = decoding.readVarUint8Array(dec);
      this.sendTo(ps, framed(peer.prefix, syncStep2Body(this.doc, sv)));
      if (peer.hocuspocus) this.sendTo(ps, framed(peer.prefix, syncStep1Body(this.doc)));
      return;
    }
    if (sub !== SYNC.step2 && sub !== SYNC.update) throw new Error(`unknown sync message type ${sub}`);
    const update = decoding.readVarUint8Array(dec);
    if (peer.readOnly) {
      // A viewer's edits are dropped; Hocuspocus learns whether its update was refused.
      if (peer.hocuspocus && ps) {
        const nothingNew = sub === SYNC.step2 && Y.snapshotContainsUpdate(Y.snapshot(this.doc), update);
        this.sendTo(ps, framed(peer.prefix, nothingNew ? ACK_TRUE : ACK_FALSE));
      }
      return;
    }
    Y.applyUpdate(this.doc, update, peer);
    this.lastEditor = peer.by;
    if (peer.hocuspocus && ps) {
      ps.ack ??= framed(peer.prefix, ACK_TRUE); // one frame per connection, reused per update
      this.sendTo(ps, ps.ack);
    }
  }

  private onDocUpdate(update: Uint8Array, origin: unknown): void {
    this.updatesSeen++;
    // The tick's updates all from one connection: it already has them, skip it.
    this.tickOrigin = this.pendingUpdates.length === 0 || this.tickOrigin === origin ? origin : MIXED;
    this.pendingUpdates.push(update);
    if (origin !== REMOTE && origin !== STORE) this.publishUpdates.push(update);
    this.saver.touch();
    this.scheduleTick();
  }

  private onAwarenessUpdate(
    { added, updated, removed }: { added: number[]; updated: number[]; removed: number[] },
    origin: unknown,
  ): void {
    const ps = origin !== null && typeof origin === "object" && "awarenessIds" in origin ? (origin as PeerState) : null;
    for (const id of added) ps?.awarenessIds.add(id);
    for (const id of updated) ps?.awarenessIds.add(id);
    for (const id of removed) ps?.awarenessIds.delete(id);
    for (const list of [added, updated, removed]) {
      for (const id of list) {
        this.pendingAwareness.add(id);
        if (origin !== REMOTE) this.publishAwareness.add(id);
      }
    }
    this.scheduleTick();
  }

  /**
   * A tick ends at the end of this event-loop turn, or, when the room flushed less than
   * `flushIntervalMs` ago, that long after its last flush: a quiet room answers at once, a
   * busy one sends fewer, larger frames (the per-socket write is what fan-out costs).
   */
  private scheduleTick(): void {
    if (this.tickScheduled || this.destroyed) return;
    this.tickScheduled = true;
    const wait = this.lastFlushAt + this.opts.flushIntervalMs - performance.now();
    if (wait <= 0) setImmediate(() => this.flushTick());
    else setTimeout(() => this.flushTick(), wait);
  }

  /** The end of a tick: one merged update and one awareness update to everybody. */
  private flushTick(): void {
    this.tickScheduled = false;
    if (this.destroyed) return;
    this.lastFlushAt = performance.now();
    if (this.pendingUpdates.length > 0) {
      const merged = mergeAll(this.pendingUpdates);
      const publish =
        this.publishUpdates.length === this.pendingUpdates.length ? merged : mergeAll(this.publishUpdates);
      const hasPublish = this.publishUpdates.length > 0;
      this.pendingUpdates = [];
      this.publishUpdates = [];
      const skip = this.tickOrigin;
      this.tickOrigin = MIXED;
      this.broadcast(new FrameCache(updateBody(merged)), skip);
      if (hasPublish) this.publish({ i: this.deps.instanceId, t: "u", d: toB64(publish) });
    }
    if (this.pendingAwareness.size > 0) {
      const ids = [...this.pendingAwareness];
      const pub = [...this.publishAwareness];
      this.pendingAwareness.clear();
      this.publishAwareness.clear();
      this.broadcast(new FrameCache(awarenessBody(this.awareness, ids)));
      if (pub.length > 0) {
        const bytes = awarenessProtocol.encodeAwarenessUpdate(this.awareness, pub);
        this.publish({ i: this.deps.instanceId, t: "a", d: toB64(bytes) });
      }
    }
  }

  private broadcast(cache: FrameCache, skip: unknown = MIXED): void {
    for (const ps of this.peers.values()) {
      if (ps.behind === null && ps.peer !== skip) this.sendTo(ps, cache.for(ps.peer));
    }
  }

  /** Writes one frame; a pushed-back socket is marked behind as of the doc's state now. */
  private sendTo(ps: PeerState, frame: Uint8Array): void {
    const status = ps.peer.send(frame);
    if (status > 0) return;
    if (status === -1) {
      // Queued: the client will have everything up to now once the socket drains.
      if (ps.behind === null) ps.behind = { sv: Y.encodeStateVector(this.doc) };
    } else {
      ps.behind = { sv: null }; // dropped: we no longer know what it has
    }
  }

  private onWire(text: string): void {
    let wire: Wire;
    try {
      wire = JSON.parse(text) as Wire;
    } catch {
      return;
    }
    if (wire.i === this.deps.instanceId || this.destroyed) return;
    if (!this.actor.post({ t: "remote", wire })) {
      this.deps.logger.warn(
        { doc_id: this.docId },
        "collab room: mailbox full; dropped a message from another instance",
      );
      // Recover what was dropped by asking for everything we lack.
      this.publish({ i: this.deps.instanceId, t: "sv", d: toB64(Y.encodeStateVector(this.doc)), r: false });
    }
  }

  private handleRemote(wire: Wire): void {
    const data = fromB64(wire.d);
    if (wire.t === "u") {
      Y.applyUpdate(this.doc, data, REMOTE);
    } else if (wire.t === "a") {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, data, REMOTE);
    } else if (wire.t === "sv") {
      const diff = Y.encodeStateAsUpdate(this.doc, data);
      // An update with no structs and no deletions encodes to two zero bytes.
      if (diff.byteLength > 2) this.publish({ i: this.deps.instanceId, t: "u", d: toB64(diff) });
      if (wire.r) this.publish({ i: this.deps.instanceId, t: "sv", d: toB64(Y.encodeStateVector(this.doc)), r: false });
      const ids = [...this.awareness.getStates().keys()];
      if (ids.length > 0) {
        const bytes = awarenessProtocol.encodeAwarenessUpdate(this.awareness, ids);
        this.publish({ i: this.deps.instanceId, t: "a", d: toB64(bytes) });
      }
    }
  }

  private publish(wire: Wire): void {
    const { pubsub } = this.deps;
    if (!pubsub) return;
    pubsub.publish(this.deps.channel, JSON.stringify(wire)).catch((err: unknown) => {
      this.deps.logger.warn({ err, doc_id: this.docId }, "collab room: publishing to other instances failed");
    });
  }

  /**
   * Stores the full state. CollabPersistence.store merges with what is stored, so when
   * several instances save one document the last writer never erases the others' updates.
   */
  private async save(): Promise<void> {
    if (this.doc.isDestroyed) return;
    await this.deps.persistence.store(this.docId, Y.encodeStateAsUpdate(this.doc), this.lastEditor);
  }
}

const ACK_TRUE = syncStatusBody(true);
const ACK_FALSE = syncStatusBody(false);

function mergeAll(updates: Uint8Array[]): Uint8Array {
  return updates.length === 1 ? (updates[0] as Uint8Array) : Y.mergeUpdates(updates);
}
