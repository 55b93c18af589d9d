import { describe, expect, test } from "bun:test";
import * as Y from "yjs";
import type { CollabPersistence } from "./ports.ts";
import { StoredDocRooms } from "./stored-rooms.ts";
import type { UpdatedBy } from "./types.ts";
import { YDOC_FIELD } from "./types.ts";
import { docAstOfState, mergeStates } from "./ydoc.ts";

/** CollabPersistence in memory with the service's merge semantics (our own port). */
class MemoryPersistence implements CollabPersistence {
  state: Uint8Array | null = null;
  stores: UpdatedBy[] = [];
  async load() {
    await Bun.sleep(1);
    return this.state;
  }
  async store(_id: string, state: Uint8Array, by: UpdatedBy) {
    await Bun.sleep(1);
    this.state = mergeStates(this.state, state).state;
    this.stores.push(by);
  }
}

const appendParagraph = (text: string) => (doc: Y.Doc) => {
  const p = new Y.XmlElement("paragraph");
  p.insert(0, [new Y.XmlText(text)]);
  const frag = doc.getXmlFragment(YDOC_FIELD);
  frag.insert(frag.length, [p]);
};

describe("StoredDocRooms (LiveRooms over stored state)", () => {
  test("concurrent calls on one document are serialised: none is lost", async () => {
    const persistence = new MemoryPersistence();
    const rooms = new StoredDocRooms(persistence);
    const by = { updated_by_type: "agent", updated_by_id: "a" };
    await Promise.all(["one", "two", "three"].map((t) => rooms.withDoc("d", "test", appendParagraph(t), by)));
    const texts = (docAstOfState(persistence.state).content as { content: { text: string }[] }[]).map(
      (p) => p.content[0]?.text,
    );
    expect(texts).toEqual(["one", "two", "three"]);
    expect(persistence.stores).toEqual([by, by, by]);
  });

  test("a call that changes nothing stores nothing; a failing call rejects and the next one runs", async () => {
    const persistence = new MemoryPersistence();
    const rooms = new StoredDocRooms(persistence);
    await rooms.withDoc("d", "test", () => {});
    expect(persistence.stores).toHaveLength(0);
    const failing = rooms.withDoc("d", "test", () => {
      throw new Error("boom");
    });
    const next = rooms.withDoc("d", "test", appendParagraph("after"));
    await expect(failing).rejects.toThrow("boom");
    await next;
    expect(persistence.stores).toHaveLength(1);
  });
});
