/**
 * Seeded convergence fuzz (STYLE habit 13): simulated clients of both dialects, on two
 * instances sharing a pub/sub bus, edit one document, disconnect, edit offline and
 * reconnect in an order the PRNG picks, while the store fails now and then. After
 * quiescence every client and the stored state hold the same document.
 * Replay a failure with CAIRN_FUZZ_SEED=<seed printed on stderr>.
 */
import { afterEach, expect, test } from "bun:test";
import * as Y from "yjs";
import { MemoryBus, MemoryPubSub } from "../../adapters/pubsub/index.ts";
import {
  type CollabTestServer,
  hocuspocusClient,
  MemoryCollabPersistence,
  startCollabServer,
  TableAuthorizer,
  waitFor,
  yWebsocketClient,
} from "../../test/fixtures/editor-server.ts";
import { fuzzSeed, type Prng, prng } from "../../test/prng.ts";

const servers: CollabTestServer[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  for (const s of servers.splice(0)) await s.stop();
});

interface SimClient {
  doc: Y.Doc;
  kind: "hocuspocus" | "y-websocket";
  server: number;
  conn: { destroy(): void } | null;
}

const ALPHABET = "abcdefghij ";

function randomEdit(r: Prng, doc: Y.Doc): void {
  const text = doc.getText("t");
  const list = doc.getArray<number>("list");
  const op = r.int(10);
  if (op < 6 || text.length === 0) {
    let s = "";
    for (let i = 1 + r.int(4); i > 0; i--) s += ALPHABET[r.int(ALPHABET.length)];
    text.insert(r.int(text.length + 1), s);
  } else if (op < 8) {
    const at = r.int(text.length);
    text.delete(at, Math.min(1 + r.int(3), text.length - at));
  } else if (op < 9 || list.length === 0) {
    list.insert(r.int(list.length + 1), [r.int(1000)]);
  } else {
    list.delete(r.int(list.length), 1);
  }
}

async function run(seed: number, steps: number, clientCount: number): Promise<void> {
  const r = prng(seed);
  const persistence = new MemoryCollabPersistence();
  const auth = new TableAuthorizer();
  const bus = new MemoryBus();
  for (let i = 0; i < 2; i++) {
    const s = startCollabServer({
      persistence,
      authorizer: auth,
      pubsub: new MemoryPubSub(bus),
      rooms: { debounceMs: 5 + r.int(30), maxWaitMs: 60, unloadDelayMs: 10 + r.int(40) },
    });
    servers.push(s);
  }
  const docId = crypto.randomUUID();
  const clients: SimClient[] = Array.from({ length: clientCount }, (_, i) => ({
    doc: new Y.Doc(),
    kind: i % 2 === 0 ? "hocuspocus" : "y-websocket",
    server: r.int(2),
    conn: null,
  }));
  const connect = (c: SimClient) => {
    const url = (servers[c.server] as CollabTestServer).url;
    const token = auth.issue({ [docId]: "editor" });
    c.conn =
      c.kind === "hocuspocus" ? hocuspocusClient(url, docId, token, c.doc) : yWebsocketClient(url, docId, token, c.doc);
  };
  const disconnect = (c: SimClient) => {
    c.conn?.destroy();
    c.conn = null;
  };
  cleanups.push(() => {
    for (const c of clients) disconnect(c);
  });

  for (let step = 0; step < steps; step++) {
    const c = r.pick(clients);
    const action = r.int(20);
    if (action < 12) {
      randomEdit(r, c.doc); // online or offline: both must end up everywhere
    } else if (action < 15) {
      if (c.conn) disconnect(c);
      else {
        c.server = r.int(2); // a reconnect may land on the other instance
        connect(c);
      }
    } else if (action === 15) {
      persistence.failStores = 1 + r.int(2);
    } else if (action === 16) {
      persistence.failLoads = 1;
    }
    if (r.bool(0.3)) await Bun.sleep(r.int(8));
  }

  // Quiescence: everyone back online, no more injected failures.
  persistence.failLoads = 0;
  persistence.failStores = 0;
  for (const c of clients) if (!c.conn) connect(c);
  const first = clients[0] as SimClient;
  const same = (a: Y.Doc, b: Y.Doc) =>
    a.getText("t").toString() === b.getText("t").toString() &&
    JSON.stringify(a.getArray("list").toJSON()) === JSON.stringify(b.getArray("list").toJSON());
  await waitFor(`convergence (seed ${seed})`, () => clients.every((c) => same(c.doc, first.doc)), {
    timeoutMs: 30_000,
    everyMs: 20,
  });
  // Everyone leaves: rooms save and unload; the store holds the same document.
  for (const c of clients) disconnect(c);
  await waitFor(`rooms unloaded (seed ${seed})`, () => servers.every((s) => s.rooms.stats().rooms === 0), {
    timeoutMs: 30_000,
    everyMs: 20,
  });
  const stored = new Y.Doc();
  Y.applyUpdate(stored, persistence.states.get(docId) ?? new Uint8Array([0, 0]));
  expect(stored.getText("t").toString()).toBe(first.doc.getText("t").toString());
  expect(stored.getArray("list").toJSON()).toEqual(first.doc.getArray("list").toJSON());
  expect(first.doc.getText("t").length + first.doc.getArray("list").length).toBeGreaterThan(0);
}

test("clients editing, disconnecting and reconnecting in random order converge with the store", async () => {
  const base = fuzzSeed("collab convergence");
  for (let round = 0; round < 3; round++) {
    await run((base + round) >>> 0, 250, 8);
    for (const c of cleanups.splice(0)) c();
    for (const s of servers.splice(0)) await s.stop();
  }
}, 180_000);
