/**
 * A room's connections and the writes to them (collab.md "Fan-out"). A socket that pushes
 * back is skipped by broadcasts from then on and remembers the state vector it had been
 * sent; the room catches it up on `drain`. Split from room.ts: the room decides what to
 * send and when; this writes it and keeps each connection's standing.
 */
import { type FrameCache, framed, syncStatusBody } from "./frames.ts";
import type { CollabPeer } from "./types.ts";

export interface PeerState {
  peer: CollabPeer;
  /** Skipped by broadcasts since its socket pushed back; sv null = send the whole state. */
  behind: { sv: Uint8Array | null } | null;
  /** Awareness client ids this connection controls (removed when it leaves). */
  awarenessIds: Set<number>;
  /** Hocuspocus: the framed "update applied" acknowledgement, built on first use. */
  ack?: Uint8Array;
}

export const ACK_TRUE = syncStatusBody(true);
export const ACK_FALSE = syncStatusBody(false);

export class RoomPeers {
  private readonly map = new Map<CollabPeer, PeerState>();

  /** `sentState`: the state vector every connection has been sent so far. */
  constructor(private readonly sentState: () => Uint8Array) {}

  get size(): number {
    return this.map.size;
  }

  add(peer: CollabPeer): PeerState {
    const ps: PeerState = { peer, behind: null, awarenessIds: new Set() };
    this.map.set(peer, ps);
    return ps;
  }

  get(peer: CollabPeer): PeerState | undefined {
    return this.map.get(peer);
  }

  /** Removes a connection; its state, or undefined when it was not there. */
  remove(peer: CollabPeer): PeerState | undefined {
    const ps = this.map.get(peer);
    if (ps) this.map.delete(peer);
    return ps;
  }

  /** One body to every connection not behind (and not `skip`), framed once per address. */
  broadcast(cache: FrameCache, skip: unknown): void {
    for (const ps of this.map.values()) {
      if (ps.behind === null && ps.peer !== skip) this.send(ps, cache.for(ps.peer));
    }
  }

  /** Hocuspocus: one SyncStatus per applied update (the provider counts them). */
  ack(ps: PeerState): void {
    ps.ack ??= framed(ps.peer.prefix, ACK_TRUE); // one frame per connection, reused per update
    this.send(ps, ps.ack);
  }

  /** Writes one frame; a pushed-back socket is marked behind. */
  send(ps: PeerState, frame: Uint8Array): void {
    const status = ps.peer.send(frame);
    if (status > 0) return;
    if (status === -1) {
      // Queued: the client will have what was broadcast so far once the socket drains
      // (not the updates of this tick, which it is now skipped for: an ack can be queued
      // after the tick applied other connections' updates and before it broadcast them).
      if (ps.behind === null) ps.behind = { sv: this.sentState() };
    } else {
      ps.behind = { sv: null }; // dropped: we no longer know what it has
    }
  }

  closeAll(code: number, reason: string): void {
    for (const ps of this.map.values()) ps.peer.close(code, reason);
    this.map.clear();
  }
}
