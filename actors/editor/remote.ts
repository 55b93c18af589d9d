/**
 * A room's link to the rooms of the same document on other instances (collab.md "Several
 * instances"): JSON messages on the document's PubSub channel — local updates and
 * awareness (base64), and state-vector requests that ask the others for what this one
 * lacks. Split from room.ts: the room decides what to send; this knows the wire.
 */
import type { RoomDeps } from "./types.ts";

/** What rooms of one document on different instances tell each other (JSON on the channel). */
export type Wire =
  | { i: string; t: "u"; d: string }
  | { i: string; t: "a"; d: string }
  | { i: string; t: "sv"; d: string; r: boolean };

export const toB64 = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString("base64");
export const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

export class RoomLink {
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly deps: RoomDeps,
    private readonly docId: string,
  ) {}

  get enabled(): boolean {
    return this.deps.pubsub !== null;
  }

  /** Subscribes; `receive` gets every other instance's message (this one's are skipped). */
  async open(receive: (wire: Wire) => void): Promise<void> {
    const { pubsub } = this.deps;
    if (!pubsub) return;
    this.unsubscribe = await pubsub.subscribe(this.deps.channel, (text) => {
      let wire: Wire;
      try {
        wire = JSON.parse(text) as Wire;
      } catch {
        return;
      }
      if (wire.i !== this.deps.instanceId) receive(wire);
    });
  }

  update(bytes: Uint8Array): void {
    this.publish({ i: this.deps.instanceId, t: "u", d: toB64(bytes) });
  }

  awareness(bytes: Uint8Array): void {
    this.publish({ i: this.deps.instanceId, t: "a", d: toB64(bytes) });
  }

  /** Asks the others for what this state vector lacks; `reply`: ask them to ask back. */
  stateVector(sv: Uint8Array, reply: boolean): void {
    this.publish({ i: this.deps.instanceId, t: "sv", d: toB64(sv), r: reply });
  }

  close(): void {
    const unsub = this.unsubscribe;
    this.unsubscribe = undefined;
    unsub?.().catch((err) => this.deps.logger.warn({ err, doc_id: this.docId }, "collab room: unsubscribe failed"));
  }

  private publish(wire: Wire): void {
    const { pubsub } = this.deps;
    if (!pubsub) return;
    pubsub.publish(this.deps.channel, JSON.stringify(wire)).catch((err: unknown) => {
      this.deps.logger.warn({ err, doc_id: this.docId }, "collab room: publishing to other instances failed");
    });
  }
}
