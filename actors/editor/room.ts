/**
 * One collaboration room (spec 2.12, 4.7): the actor that owns a document's Y.Doc and
 * awareness (awareness.ts). Client frames, messages from other instances and server-side
 * edits queue in its bounded mailbox (mailbox.ts) and are handled one at a time; joins,
 * leaves and drains are synchronous calls (they must never be refused).
 *
 * Fan-out (STYLE habit 9): a tick's client updates wait in an inbox and are applied at its
 * end in one transaction, encoded once by Yjs (inbox.ts says why), framed once per address
 * and written to every connection (peers.ts: backpressure and catch-up on drain). Whatever
 * reads the document (a sync step 1, a save, a REST edit, `doc`) applies the inbox first.
 * Multi-instance (remote.ts): local updates and awareness are published per tick on the
 * document's channel; on load the room asks the others for what it lacks.
 */
import * as decoding from "lib0/decoding";
import * as Y from "yjs";
import type { UpdatedBy } from "../../domain/editor/types.ts";
import type { Actor } from "../actor.ts";
import { RoomAwareness } from "./awareness.ts";
import { FrameCache, framed, MSG, SYNC, syncStep1Body, syncStep2Body, updateBody } from "./frames.ts";
import { Inbox, transactionChanged } from "./inbox.ts";
import { type RoomMessage, roomActor } from "./mailbox.ts";
import { Outbox } from "./outbox.ts";
import { ACK_FALSE, ACK_TRUE, type PeerState, RoomPeers } from "./peers.ts";
import { fromB64, RoomLink, type Wire } from "./remote.ts";
import { DebouncedSaver } from "./saver.ts";
import type { CollabPeer, RoomDeps, RoomOptions } from "./types.ts";
import { ROOM_DEFAULTS } from "./types.ts";

/** Origin of updates and awareness that came from another instance: never re-published. */
const REMOTE = Symbol("collab-remote");
/** Origin of the stored state applied at load. */
const STORE = Symbol("collab-store");
/** A tick whose updates came from several origins. */
const MIXED = Symbol("collab-mixed");

export class CollabRoom {
  /** The document itself; `doc` is the accessor that applies the inbox first. */
  private readonly ydoc = new Y.Doc({ gc: true });
  private readonly actor: Actor<RoomMessage, CollabRoom>;
  private readonly saver: DebouncedSaver;
  private readonly outbox = new Outbox(MIXED);
  readonly awareness = new RoomAwareness(this.ydoc, this.outbox, REMOTE, () => this.scheduleTick());
  private readonly peers = new RoomPeers(() => this.outbox.sentState(this.ydoc));
  /** Server-side callers (LiveRooms.withDoc) holding the room open. */
  private leases = 0;
  /** Client updates taken from the mailbox, applied together at the end of the tick. */
  private readonly inbox: Inbox;
  private tickScheduled = false;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  /** Updates applied so far: tells an edit that changed something from one that did not. */
  private updatesSeen = 0;
  private lastEditor: UpdatedBy = { updated_by_type: "system", updated_by_id: "collab" };
  private readonly link: RoomLink;
  private destroyed = false;

  private constructor(
    readonly docId: string,
    private readonly deps: RoomDeps,
    private readonly opts: RoomOptions,
  ) {
    this.link = new RoomLink(deps, docId);
    this.inbox = new Inbox(this.ydoc, {
      mixed: MIXED,
      queue: (update, origin) => this.queueBroadcast(update, origin),
      malformed: (b, err) => {
        deps.logger.warn(
          { err, doc_id: docId, peer: b.peer.id },
          "collab room: malformed update; closing the connection",
        );
        b.peer.close(1007, "malformed collaboration message");
      },
    });
    this.saver = new DebouncedSaver({
      debounceMs: opts.debounceMs,
      maxWaitMs: opts.maxWaitMs,
      retryMs: 500,
      maxRetryMs: 30_000,
      save: () => this.save(),
      onError: (err, failures) =>
        deps.logger.error({ err, doc_id: docId, failures }, "collab room: saving the document failed; will retry"),
    });
    this.actor = roomActor<CollabRoom>(docId, deps, opts, this, (room, m) => room.handle(m));
    // No "update" listener: it would make Yjs re-encode every transaction (inbox.ts).
    this.ydoc.on("afterTransaction", (tr: Y.Transaction) => this.onTransaction(tr));
  }

  /**
   * Loads the stored state; a failed load throws and no room exists (a room built on an
   * empty document would later overwrite the stored one).
   */
  static async load(docId: string, deps: RoomDeps, opts: RoomOptions = ROOM_DEFAULTS): Promise<CollabRoom> {
    const state = await deps.persistence.load(docId);
    const room = new CollabRoom(docId, deps, opts);
    // The stored state is not a change: nothing to broadcast or save (STORE is neither).
    if (state && state.byteLength > 0) Y.applyUpdate(room.ydoc, state, STORE);
    if (room.link.enabled) {
      try {
        await room.link.open((wire) => room.onWire(wire));
      } catch (err) {
        room.destroyNow();
        throw err;
      }
      room.link.stateVector(Y.encodeStateVector(room.ydoc), true);
    }
    return room;
  }

  /** The document, with every update the room has taken applied. */
  get doc(): Y.Doc {
    this.applyInbox();
    return this.ydoc;
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
    const ps = this.peers.add(peer);
    if (!peer.hocuspocus) this.peers.send(ps, framed(peer.prefix, syncStep1Body(this.doc)));
    if (this.awareness.present) this.peers.send(ps, framed(peer.prefix, this.awareness.body()));
  }

  /** Removes a connection and the awareness states it controlled. Idempotent. */
  leave(peer: CollabPeer): void {
    const ps = this.peers.remove(peer);
    if (ps) this.awareness.removePeer(ps);
  }

  /** The peer's socket drained: catch it up on what it was skipped for. */
  drain(peer: CollabPeer): void {
    const ps = this.peers.get(peer);
    if (!ps?.behind) return;
    const { sv } = ps.behind;
    ps.behind = null;
    this.peers.send(ps, framed(peer.prefix, updateBody(Y.encodeStateAsUpdate(this.doc, sv ?? undefined))));
    if (this.awareness.present) this.peers.send(ps, framed(peer.prefix, this.awareness.body()));
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
    this.peers.closeAll(1001, "document unloaded");
    this.destroyNow();
  }

  private destroyNow(): void {
    this.destroyed = true;
    this.saver.close();
    void this.actor.stop({ mode: "abandon" });
    this.link.close();
    this.inbox.clear();
    this.awareness.destroy();
    this.ydoc.destroy();
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
          this.applyInbox();
          this.inbox.captured(() => this.ydoc.transact(() => m.fn(this.ydoc), m.origin));
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
        if (ps) this.awareness.apply(decoding.readVarUint8Array(dec), ps);
      } else if (type === MSG.queryAwareness) {
        if (ps) this.peers.send(ps, framed(peer.prefix, this.awareness.body()));
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
      this.peers.send(ps, framed(peer.prefix, syncStep2Body(this.doc, sv)));
      if (peer.hocuspocus) this.peers.send(ps, framed(peer.prefix, syncStep1Body(this.doc)));
      return;
    }
    if (sub !== SYNC.step2 && sub !== SYNC.update) throw new Error(`unknown sync message type ${sub}`);
    const update = decoding.readVarUint8Array(dec);
    if (sub === SYNC.update && !peer.readOnly) {
      // The hot path: applied and broadcast with the rest of the tick. Acknowledged now:
      // the update is in the room's order, and whatever reads the document (sync answers,
      // saves, edits, `doc`) applies the inbox first, so to every observer it is applied.
      // Acking after the tick would add its wait to every writer's round trip.
      const full = this.inbox.push(peer, update);
      if (peer.hocuspocus && ps) this.peers.ack(ps);
      if (full) this.applyInbox();
      else this.scheduleTick();
      return;
    }
    // A step 2 answers our step 1 with the client's whole document: apply it on its own and
    // broadcast only what it changed (captured), never the client's full copy.
    this.applyInbox();
    if (peer.readOnly) {
      // A viewer's edits are dropped; Hocuspocus learns whether its update was refused.
      if (peer.hocuspocus && ps) {
        const nothingNew = sub === SYNC.step2 && Y.snapshotContainsUpdate(Y.snapshot(this.doc), update);
        this.peers.send(ps, framed(peer.prefix, nothingNew ? ACK_TRUE : ACK_FALSE));
      }
      return;
    }
    this.inbox.captured(() => Y.applyUpdate(this.ydoc, update, peer));
    this.lastEditor = peer.by;
    if (peer.hocuspocus && ps) this.peers.ack(ps);
  }

  /** Applies what the inbox holds (inbox.ts); its last writer becomes the room's last editor. */
  private applyInbox(): void {
    const last = this.inbox.apply();
    if (last) this.lastEditor = last.peer.by;
  }

  private onTransaction(tr: Y.Transaction): void {
    if (tr.origin === STORE || !transactionChanged(tr)) return;
    this.outbox.changed(tr.beforeState);
    this.updatesSeen++;
    this.saver.touch();
  }

  private queueBroadcast(update: Uint8Array, origin: unknown): void {
    this.outbox.update(update, origin, origin !== REMOTE && origin !== STORE);
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
    if (this.destroyed) {
      this.tickScheduled = false;
      return;
    }
    this.applyInbox(); // still "scheduled": what it queues belongs to this tick
    this.tickScheduled = false;
    this.lastFlushAt = performance.now();
    const updates = this.outbox.takeUpdates();
    if (updates) {
      // The tick's updates all from one connection: it already has them, skip it.
      this.peers.broadcast(new FrameCache(updateBody(updates.update)), updates.origin);
      if (updates.publish) this.link.update(updates.publish);
    }
    const aw = this.outbox.takeAwareness();
    if (aw) {
      this.peers.broadcast(new FrameCache(this.awareness.body(aw.ids)), MIXED);
      if (aw.publish.length > 0) this.link.awareness(this.awareness.encode(aw.publish));
    }
  }

  private onWire(wire: Wire): void {
    if (this.destroyed) return;
    if (!this.actor.post({ t: "remote", wire })) {
      this.deps.logger.warn(
        { doc_id: this.docId },
        "collab room: mailbox full; dropped a message from another instance",
      );
      // Recover what was dropped by asking for everything we lack.
      this.link.stateVector(Y.encodeStateVector(this.doc), false);
    }
  }

  private handleRemote(wire: Wire): void {
    const data = fromB64(wire.d);
    this.applyInbox();
    if (wire.t === "u") {
      this.inbox.captured(() => Y.applyUpdate(this.ydoc, data, REMOTE));
    } else if (wire.t === "a") {
      this.awareness.apply(data, REMOTE);
    } else if (wire.t === "sv") {
      const diff = Y.encodeStateAsUpdate(this.doc, data);
      // An update with no structs and no deletions encodes to two zero bytes.
      if (diff.byteLength > 2) this.link.update(diff);
      if (wire.r) this.link.stateVector(Y.encodeStateVector(this.doc), false);
      if (this.awareness.present) this.link.awareness(this.awareness.encode());
    }
  }

  /**
   * Stores the full state. CollabPersistence.store merges with what is stored, so when
   * several instances save one document the last writer never erases the others' updates.
   */
  private async save(): Promise<void> {
    if (this.ydoc.isDestroyed) return;
    this.applyInbox();
    await this.deps.persistence.store(this.docId, Y.encodeStateAsUpdate(this.ydoc), this.lastEditor);
  }
}
