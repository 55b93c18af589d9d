/**
 * What a room owes its connections and the other instances at the end of a tick: the
 * updates applied since the last broadcast (with the one origin they share, to skip its
 * connection), those to publish (not what came from another instance), the awareness ids
 * that changed, and the state every connection had been sent before them (a socket that
 * pushes back mid-tick is caught up from there). Split from room.ts.
 */
import * as Y from "yjs";

export class Outbox {
  private updates: Uint8Array[] = [];
  private publish: Uint8Array[] = [];
  private origin: unknown;
  /** The clocks before the unbroadcast updates (null: nothing applied since the broadcast). */
  private sent: Map<number, number> | null = null;
  private awareness = new Set<number>();
  private awarenessPublish = new Set<number>();

  /** `mixed`: the origin of a tick whose updates came from several places. */
  constructor(private readonly mixed: unknown) {
    this.origin = mixed;
  }

  /** A transaction changed the document: remember what had been sent before the first. */
  changed(beforeState: Map<number, number>): void {
    if (this.updates.length === 0) this.sent = beforeState;
  }

  update(bytes: Uint8Array, origin: unknown, publish: boolean): void {
    this.origin = this.updates.length === 0 || this.origin === origin ? origin : this.mixed;
    this.updates.push(bytes);
    if (publish) this.publish.push(bytes);
  }

  awarenessChanged(id: number, publish: boolean): void {
    this.awareness.add(id);
    if (publish) this.awarenessPublish.add(id);
  }

  /** The state vector every connection has been sent so far. */
  sentState(doc: Y.Doc): Uint8Array {
    return Y.encodeStateVector(this.updates.length > 0 && this.sent ? this.sent : doc);
  }

  /** The tick's update (merged), what to publish of it, and whose it was; null: none. */
  takeUpdates(): { update: Uint8Array; publish: Uint8Array | null; origin: unknown } | null {
    if (this.updates.length === 0) return null;
    const update = mergeAll(this.updates);
    const publish =
      this.publish.length === 0 ? null : this.publish.length === this.updates.length ? update : mergeAll(this.publish);
    const origin = this.origin;
    this.updates = [];
    this.publish = [];
    this.origin = this.mixed;
    this.sent = null;
    return { update, publish, origin };
  }

  /** The awareness ids that changed this tick, and those to publish; null: none. */
  takeAwareness(): { ids: number[]; publish: number[] } | null {
    if (this.awareness.size === 0) return null;
    const out = { ids: [...this.awareness], publish: [...this.awarenessPublish] };
    this.awareness.clear();
    this.awarenessPublish.clear();
    return out;
  }
}

function mergeAll(updates: Uint8Array[]): Uint8Array {
  return updates.length === 1 ? (updates[0] as Uint8Array) : Y.mergeUpdates(updates);
}
