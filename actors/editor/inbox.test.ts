/**
 * The room's batched hot path (inbox.ts): a tick's client updates are applied in one
 * transaction, acknowledged on receipt, broadcast once; these tests hold the promises that
 * batching must not weaken — acknowledged updates survive a graceful stop and a reload,
 * a malformed update costs only its own connection, rooms never leak into each other, a
 * socket pushed back by an acknowledgement still receives the rest of the tick.
 */
import { describe, expect, test } from "bun:test";
import * as Y from "yjs";
import { RecordingPeer, textUpdate, updateFrame, waitFor } from "../../test/fixtures/editor-server.ts";
import { MSG } from "./frames.ts";
import { roomHarness, text } from "./test-support.ts";

// Saves only on flush/unload/shutdown: what is stored is what the stop path wrote.
const harness = roomHarness({ debounceMs: 60_000, maxWaitMs: 60_000, unloadDelayMs: 60_000 });

/** A Hocuspocus-flavoured peer (no address framing): it receives a SyncStatus per update. */
type HocuspocusPeer = RecordingPeer & { acks(): number };
function hocuspocusPeer(): HocuspocusPeer {
  const peer = new RecordingPeer();
  // RecordingPeer types `hocuspocus` as the literal false; the room reads it at run time.
  Object.defineProperty(peer, "hocuspocus", { value: true });
  return Object.assign(peer, {
    acks: () => peer.frames.filter((f) => f[0] === MSG.syncStatus && f[1] === 1).length,
  });
}

/** `n` single-character inserts typed in order into `scratch`, one update each. */
function typed(scratch: Y.Doc, n: number, from = 0): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const sv = Y.encodeStateVector(scratch);
    const t = scratch.getText("t");
    t.insert(t.length, String((from + i) % 10));
    out.push(Y.encodeStateAsUpdate(scratch, sv));
  }
  return out;
}

describe("collab room inbox", () => {
  test("every acknowledged update is stored by a graceful stop and comes back after a reload", async () => {
    const { p, rooms } = harness.fresh({ flushIntervalMs: 1_000 }); // a long tick: updates wait in the inbox
    const id = crypto.randomUUID();
    const room = await rooms.room(id);
    const writers = [hocuspocusPeer(), hocuspocusPeer()];
    for (const w of writers) room.join(w);
    const docs = [new Y.Doc(), new Y.Doc()];
    let sent = 0;
    for (let round = 0; round < 50; round++) {
      for (const [i, w] of writers.entries()) {
        for (const u of typed(docs[i] as Y.Doc, 1, round)) expect(room.post(w, updateFrame(u))).toBe(true);
        sent++;
      }
    }
    await waitFor("every update acknowledged", () => writers.reduce((n, w) => n + w.acks(), 0) === sent);
    expect(p.stores).toHaveLength(0); // nothing saved yet: the debounce is a minute away
    await rooms.close(); // SIGTERM's path

    const again = harness.rooms(p);
    const reloaded = (await again.room(id)).doc;
    const expected = new Y.Doc();
    for (const d of docs) Y.applyUpdate(expected, Y.encodeStateAsUpdate(d));
    expect(text(reloaded)).toBe(text(expected));
    expect(text(reloaded)).toHaveLength(sent);
  });

  test("a document read while updates wait in the inbox already holds them", async () => {
    const { p, id, room } = await harness.room({ flushIntervalMs: 60_000 });
    const writer = new RecordingPeer();
    const late = new RecordingPeer();
    room.join(writer);
    const scratch = new Y.Doc();
    const [first] = typed(scratch, 1);
    room.post(writer, updateFrame(first as Uint8Array));
    await waitFor("the first update applied", () => text(room.doc) === "0");
    await Bun.sleep(20); // its tick (at once: the room was quiet) is over
    // The next tick is a minute away: these updates stay in the inbox...
    for (const u of typed(scratch, 3, 1)) room.post(writer, updateFrame(u));
    await Bun.sleep(10);
    // ...yet a joining client's sync, a save and a REST read all see it.
    room.join(late);
    const sv = Y.encodeStateVector(new Y.Doc());
    const step1 = new Uint8Array([0, 0, ...encodeVarBytes(sv)]);
    room.post(late, step1);
    await waitFor("the late joiner's step 2", () => text(late.replay()) === text(scratch));
    await room.flush();
    expect(p.text(id)).toBe(text(scratch));
    expect(text(room.doc)).toBe(text(scratch));
  });

  test("a malformed update closes only its sender; the tick's other updates apply and reach everyone", async () => {
    const { room } = await harness.room({ flushIntervalMs: 50 });
    const good = new RecordingPeer();
    const bad = new RecordingPeer();
    const reader = new RecordingPeer();
    for (const peer of [good, bad, reader]) room.join(peer);
    room.post(good, updateFrame(textUpdate("kept")));
    // A sync update whose payload is not a Yjs update (structs claimed, bytes missing).
    room.post(bad, updateFrame(new Uint8Array([5, 200, 1, 2])));
    await waitFor("the bad sender closed", () => bad.closed !== null);
    expect(bad.closed?.code).toBe(1007);
    expect(good.closed).toBeNull();
    await waitFor("the good update reached the reader", () => text(reader.replay()) === "kept");
    expect(text(room.doc)).toBe("kept");
  });

  test("a client in another room never receives this room's updates", async () => {
    const { rooms } = harness.fresh({ flushIntervalMs: 0 });
    const a = await rooms.room(crypto.randomUUID());
    const b = await rooms.room(crypto.randomUUID());
    const writer = new RecordingPeer();
    const sameRoom = new RecordingPeer();
    const otherRoom = new RecordingPeer();
    a.join(writer);
    a.join(sameRoom);
    b.join(otherRoom);
    for (const u of typed(new Y.Doc(), 20)) a.post(writer, updateFrame(u));
    await waitFor("the same room's reader", () => text(sameRoom.replay()).length === 20);
    await Bun.sleep(20);
    expect(otherRoom.updateFrames()).toHaveLength(0);
    expect(text(b.doc)).toBe("");
  });

  test("a socket pushed back by its acknowledgement still gets the tick's other updates on drain", async () => {
    const { room } = await harness.room({ flushIntervalMs: 50 });
    const other = new RecordingPeer();
    const slow = hocuspocusPeer();
    const observer = new RecordingPeer();
    for (const peer of [other, slow, observer]) room.join(peer);
    // Warm up: both have been sent the first tick.
    room.post(other, updateFrame(textUpdate("a")));
    await waitFor("first tick", () => text(slow.replay()) === "a");
    await Bun.sleep(60); // the next tick waits for the flush interval
    const base = new Y.Doc();
    Y.applyUpdate(base, Y.encodeStateAsUpdate(observer.replay()));
    const otherDoc = new Y.Doc();
    Y.applyUpdate(otherDoc, Y.encodeStateAsUpdate(base));
    const [fromOther] = typed(otherDoc, 1);
    room.post(other, updateFrame(fromOther as Uint8Array));
    await Bun.sleep(5);
    // A reader applies the inbox mid-tick: applied, not yet broadcast.
    expect(text(room.doc)).toHaveLength(2);
    slow.status = -1; // its ack (next) is queued: from then on it is behind
    const slowDoc = new Y.Doc();
    Y.applyUpdate(slowDoc, Y.encodeStateAsUpdate(base));
    slowDoc.getText("t").insert(0, "s");
    room.post(slow, updateFrame(Y.encodeStateAsUpdate(slowDoc, Y.encodeStateVector(base))));
    await waitFor("the tick's broadcast", () => text(observer.replay()).length === 3);
    slow.status = 1;
    room.drain(slow);
    const seen = slow.replay();
    Y.applyUpdate(seen, Y.encodeStateAsUpdate(slowDoc)); // what the client holds itself
    expect(text(seen)).toBe(text(room.doc));
  });
});

/** lib0 varUint8Array: the length as a varUint, then the bytes. */
function encodeVarBytes(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let n = bytes.length;
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return [...out, ...bytes];
}
