/**
 * `LiveRooms` without live rooms: load the stored state, apply the change in one
 * transaction, store it. Used until (and wherever) no room actor is wired; the room
 * registry replaces it with one that applies to an open room. Calls on one document are
 * serialised here; stores from elsewhere are safe because CollabPersistence.store merges.
 */
import * as Y from "yjs";
import type { CollabPersistence, LiveRooms } from "./ports.ts";
import type { UpdatedBy } from "./types.ts";
import { docFromState } from "./ydoc.ts";

const SYSTEM: UpdatedBy = { updated_by_type: "system", updated_by_id: "cairn" };

export class StoredDocRooms implements LiveRooms {
  /** The tail of each document's queue of calls (removed when it drains). */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly persistence: CollabPersistence) {}

  withDoc(docId: string, origin: unknown, fn: (doc: Y.Doc) => void, by: UpdatedBy = SYSTEM): Promise<void> {
    const prev = this.tails.get(docId) ?? Promise.resolve();
    const run = prev.then(() => this.once(docId, origin, fn, by));
    const tail = run.catch(() => {});
    this.tails.set(docId, tail);
    void tail.then(() => {
      if (this.tails.get(docId) === tail) this.tails.delete(docId);
    });
    return run;
  }

  private async once(docId: string, origin: unknown, fn: (doc: Y.Doc) => void, by: UpdatedBy): Promise<void> {
    const doc = docFromState(await this.persistence.load(docId));
    try {
      let changed = false;
      doc.on("update", () => {
        changed = true;
      });
      doc.transact(() => fn(doc), origin);
      if (changed) await this.persistence.store(docId, Y.encodeStateAsUpdate(doc), by);
    } finally {
      doc.destroy();
    }
  }
}
