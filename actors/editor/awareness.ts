/**
 * A room's awareness (presence: cursors, names, selections): the y-protocols Awareness of its
 * document, which connection controls which client ids (their states go when it leaves), and
 * every change handed to the tick's outbox. Split from room.ts: the room decides what to send
 * and when; this holds the states and encodes them.
 */
import * as awarenessProtocol from "y-protocols/awareness";
import type * as Y from "yjs";
import { awarenessBody } from "./frames.ts";
import type { Outbox } from "./outbox.ts";
import type { PeerState } from "./peers.ts";

interface Changes {
  added: number[];
  updated: number[];
  removed: number[];
}

export class RoomAwareness {
  readonly states: awarenessProtocol.Awareness;

  /**
   * `remote`: the origin of updates from another instance (broadcast, never re-published);
   * `changed`: called after every change (the room schedules its tick).
   */
  constructor(
    doc: Y.Doc,
    private readonly outbox: Outbox,
    private readonly remote: unknown,
    changed: () => void,
  ) {
    this.states = new awarenessProtocol.Awareness(doc);
    // The server is no participant: it must not announce a presence of its own (and this
    // removal, made before the listener exists, is no change to broadcast).
    this.states.setLocalState(null);
    this.states.on("update", (changes: Changes, origin: unknown) => {
      this.onUpdate(changes, origin);
      changed();
    });
  }

  /** Anybody present. */
  get present(): boolean {
    return this.states.getStates().size > 0;
  }

  /** The awareness message body of `ids` (default: everybody present), for connections. */
  body(ids: number[] = this.ids()): Uint8Array {
    return awarenessBody(this.states, ids);
  }

  /** The awareness update of `ids` (default: everybody present), for other instances. */
  encode(ids: number[] = this.ids()): Uint8Array {
    return awarenessProtocol.encodeAwarenessUpdate(this.states, ids);
  }

  /** Applies an update; `origin` a connection's PeerState (the ids become its own) or `remote`. */
  apply(update: Uint8Array, origin: PeerState | unknown): void {
    awarenessProtocol.applyAwarenessUpdate(this.states, update, origin);
  }

  /** Removes the states a connection that left controlled. */
  removePeer(ps: PeerState): void {
    if (ps.awarenessIds.size > 0) awarenessProtocol.removeAwarenessStates(this.states, [...ps.awarenessIds], null);
  }

  destroy(): void {
    this.states.destroy();
  }

  private ids(): number[] {
    return [...this.states.getStates().keys()];
  }

  private onUpdate({ added, updated, removed }: Changes, origin: unknown): void {
    const ps = origin !== null && typeof origin === "object" && "awarenessIds" in origin ? (origin as PeerState) : null;
    for (const id of added) ps?.awarenessIds.add(id);
    for (const id of updated) ps?.awarenessIds.add(id);
    for (const id of removed) ps?.awarenessIds.delete(id);
    for (const list of [added, updated, removed]) {
      for (const id of list) this.outbox.awarenessChanged(id, origin !== this.remote);
    }
  }
}
