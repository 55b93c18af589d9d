import { describe, expect, test } from "bun:test";
import * as Y from "yjs";
import { RecordingPeer, textUpdate, updateFrame, waitFor } from "../../test/fixtures/editor-server.ts";
import { roomHarness, text } from "./test-support.ts";

const harness = roomHarness({ debounceMs: 10, maxWaitMs: 50, unloadDelayMs: 20 });

describe("collab room", () => {
  test("loads once for many concurrent connections", async () => {
    const { p, rooms } = harness.fresh();
    const id = crypto.randomUUID();
    const got = await Promise.all(Array.from({ length: 20 }, () => rooms.room(id)));
    expect(new Set(got).size).toBe(1);
    expect(p.loads).toBe(1);
  });

  test("a failed load yields no room, and the next connection loads the stored state", async () => {
    const { p, rooms } = harness.fresh();
    const id = crypto.randomUUID();
    p.states.set(id, textUpdate("stored"));
    p.failLoads = 1;
    await expect(rooms.room(id)).rejects.toThrow("injected load failure");
    expect(rooms.stats().rooms).toBe(0);
    const room = await rooms.room(id);
    expect(text(room.doc)).toBe("stored");
    // Nothing was written while the document could not be read.
    expect(p.stores).toHaveLength(0);
  });

  test("updates of one tick reach each peer as one merged frame", async () => {
    const { room } = await harness.room();
    const writer = new RecordingPeer();
    const readers = [new RecordingPeer(), new RecordingPeer(), new RecordingPeer()];
    for (const peer of [writer, ...readers]) room.join(peer);
    const scratch = new Y.Doc();
    for (let i = 0; i < 25; i++) {
      const sv = Y.encodeStateVector(scratch);
      scratch.getText("t").insert(0, String(i % 10));
      expect(room.post(writer, updateFrame(Y.encodeStateAsUpdate(scratch, sv)))).toBe(true);
    }
    await waitFor("the tick's broadcast", () => readers.every((r) => r.updateFrames().length > 0));
    await Bun.sleep(20);
    for (const r of readers) {
      expect(r.updateFrames()).toHaveLength(1);
      expect(text(r.replay())).toBe(text(scratch));
    }
    // The same bytes for every reader: encoded once per room.
    expect(readers[1]?.updateFrames()[0]).toBe(readers[0]?.updateFrames()[0] as Uint8Array);
    // The writer already has its own updates: they are not echoed back.
    expect(writer.updateFrames()).toHaveLength(0);
  });

  test("a peer under backpressure is skipped, then caught up exactly on drain", async () => {
    const { room } = await harness.room();
    const writer = new RecordingPeer();
    const observer = new RecordingPeer();
    const slow = new RecordingPeer();
    for (const peer of [writer, observer, slow]) room.join(peer);
    const scratch = new Y.Doc();
    const edit = async (s: string) => {
      const sv = Y.encodeStateVector(scratch);
      scratch.getText("t").insert(scratch.getText("t").length, s);
      room.post(writer, updateFrame(Y.encodeStateAsUpdate(scratch, sv)));
      await waitFor("broadcast", () => text(observer.replay()) === text(scratch));
    };
    await edit("a");
    slow.status = -1; // the next frame is queued by the socket, later ones must wait
    await edit("b");
    const queued = slow.updateFrames().length;
    await edit("c");
    await edit("d");
    expect(slow.updateFrames().length).toBe(queued);
    slow.status = 1;
    room.drain(slow);
    expect(text(slow.replay())).toBe("abcd");
    // A dropped frame (status 0) is recovered with the whole state on drain.
    slow.status = 0;
    await edit("e");
    slow.status = 1;
    room.drain(slow);
    expect(text(slow.replay())).toBe("abcde");
  });

  test("a viewer's updates are dropped", async () => {
    const { p, id, room } = await harness.room();
    const viewer = new RecordingPeer(true);
    const editor = new RecordingPeer();
    room.join(viewer);
    room.join(editor);
    room.post(viewer, updateFrame(textUpdate("viewer")));
    room.post(editor, updateFrame(textUpdate("editor")));
    await waitFor("editor's edit", () => text(room.doc) === "editor");
    await room.flush();
    expect(p.text(id)).toBe("editor");
    expect(text(viewer.replay())).toBe("editor");
  });

  test("a failed save keeps the document and retries; unload waits for it", async () => {
    const { p, rooms, id, room } = await harness.room();
    const peer = new RecordingPeer();
    room.join(peer);
    p.failStores = 2;
    room.post(peer, updateFrame(textUpdate("keep me")));
    await waitFor("two failed saves", () => p.failStores === 0);
    room.leave(peer);
    expect(rooms.peek(id)).toBe(room);
    await waitFor("the retry's save", () => p.text(id) === "keep me", { timeoutMs: 10_000 });
    await waitFor("unload after the save", () => rooms.stats().rooms === 0, { timeoutMs: 10_000 });
    // A new room loads what was saved.
    const again = await rooms.room(id);
    expect(text(again.doc)).toBe("keep me");
  });

  test("a busy room saves within the max wait, not only when edits stop", async () => {
    const { p, room } = await harness.room({ debounceMs: 40, maxWaitMs: 100 });
    const peer = new RecordingPeer();
    room.join(peer);
    const scratch = new Y.Doc();
    let storesWhileBusy = 0;
    for (let i = 0; i < 40; i++) {
      const sv = Y.encodeStateVector(scratch);
      scratch.getText("t").insert(0, "x");
      room.post(peer, updateFrame(Y.encodeStateAsUpdate(scratch, sv)));
      await Bun.sleep(10); // each edit lands inside the previous one's debounce
      storesWhileBusy = p.stores.length;
    }
    expect(storesWhileBusy).toBeGreaterThanOrEqual(1);
    // Debounced: far fewer saves than edits.
    expect(storesWhileBusy).toBeLessThan(40);
  });

  test("the last client leaving flushes and unloads the room", async () => {
    const { p, rooms, id, room } = await harness.room({ debounceMs: 60_000, maxWaitMs: 60_000 });
    const peer = new RecordingPeer();
    room.join(peer);
    room.post(peer, updateFrame(textUpdate("bye")));
    await waitFor("applied", () => text(room.doc) === "bye");
    expect(p.stores).toHaveLength(0); // the debounce is a minute away
    room.leave(peer);
    room.leave(peer); // idempotent
    await waitFor("unloaded", () => rooms.stats().rooms === 0);
    expect(p.text(id)).toBe("bye");
    expect(room.doc.isDestroyed).toBe(true);
  });

  test("shutdown saves every dirty room", async () => {
    const { p, rooms } = harness.fresh({ debounceMs: 60_000, maxWaitMs: 60_000 });
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const id of ids) {
      const room = await rooms.room(id);
      const peer = new RecordingPeer();
      room.join(peer);
      room.post(peer, updateFrame(textUpdate(`doc ${id.slice(0, 4)}`)));
    }
    await Bun.sleep(5);
    await rooms.close();
    for (const id of ids) expect(p.text(id)).toBe(`doc ${id.slice(0, 4)}`);
    await expect(rooms.room(ids[0] as string)).rejects.toThrow();
  });

  test("withDoc edits the live room, reaches its peers and resolves once stored", async () => {
    const { p, rooms, id, room } = await harness.room({ debounceMs: 60_000, maxWaitMs: 60_000 });
    const peer = new RecordingPeer();
    room.join(peer);
    const by = { updated_by_type: "agent", updated_by_id: "a-7" };
    await rooms.withDoc(id, "rest", (doc) => doc.getText("t").insert(0, "from REST"), by);
    expect(p.text(id)).toBe("from REST");
    expect(p.stores.at(-1)?.by).toEqual(by);
    await waitFor("peer sees the edit", () => text(peer.replay()) === "from REST");
    // Without a live room: loaded for the call, then unloaded.
    const other = crypto.randomUUID();
    await rooms.withDoc(other, "rest", (doc) => doc.getText("t").insert(0, "cold"));
    expect(p.text(other)).toBe("cold");
    await waitFor("cold room unloaded", () => rooms.peek(other) === undefined);
  });
});
