/**
 * The benchmark's peer: @hocuspocus/server on Node (its home runtime), configured like
 * bench/collab-server.ts: in-memory load/store hooks (full state, merged), every token
 * accepted read-write, default debounce (2 s, max 10 s). Prints "ready <port>" on stdout;
 * GET http://127.0.0.1:<memPort>/mem answers memory after a full GC (run with --expose-gc).
 *
 *   node --expose-gc bench/collab-hocuspocus.mjs <port> <memPort>
 */
import { createServer } from "node:http";
import { Server } from "@hocuspocus/server";
import * as Y from "yjs";

const port = Number(process.argv[2] ?? 0);
const memPort = Number(process.argv[3] ?? port + 1);
const stored = new Map();

const server = new Server({
  port,
  address: "127.0.0.1",
  quiet: true,
  stopOnSignals: true,
  async onAuthenticate() {
    return { ok: true };
  },
  async onLoadDocument({ documentName, document }) {
    const state = stored.get(documentName);
    if (state) Y.applyUpdate(document, state);
    return document;
  },
  async onStoreDocument({ documentName, document }) {
    const state = Y.encodeStateAsUpdate(document);
    const cur = stored.get(documentName);
    stored.set(documentName, cur ? Y.mergeUpdates([cur, state]) : state);
  },
});
await server.listen();

createServer((req, res) => {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, rooms: server.hocuspocus.getDocumentsCount(), conns: server.hocuspocus.getConnectionsCount() }));
}).listen(memPort, "127.0.0.1", () => process.stdout.write(`ready ${port}\n`));
