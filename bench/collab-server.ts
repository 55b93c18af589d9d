/**
 * The benchmark's subject: Cairn's collaboration rooms (actors/editor, sockets/editor)
 * alone on Bun, configured like bench/collab-hocuspocus.mjs: in-memory persistence (full
 * state, merged), every token accepted read-write, 2 s debounce with a 10 s max wait.
 * Prints "ready <port>"; GET /mem answers memory after a full GC.
 *
 *   bun bench/collab-server.ts <port>
 */
import * as Y from "yjs";
import { CollabRooms } from "../actors/index.ts";
import type { CollabAuthorizer, CollabPersistence } from "../domain/editor/ports.ts";
import { type CollabSocketData, collabHandlers, handleCollabUpgrade, SOCKET_SETTINGS } from "../sockets/index.ts";

const port = Number(process.argv[2] ?? 0);
const stored = new Map<string, Uint8Array>();
const persistence: CollabPersistence = {
  load: async (id) => stored.get(id) ?? null,
  store: async (id, state) => {
    const cur = stored.get(id);
    stored.set(id, cur ? Y.mergeUpdates([cur, state]) : state);
  },
};
const authorizer: CollabAuthorizer = {
  authorize: async () => ({ readOnly: false, role: "editor", tenantId: "bench", userId: 1 }),
};
const quiet = { info() {}, warn() {}, error() {} };
const rooms = new CollabRooms({
  persistence,
  pubsub: null,
  channelPrefix: "bench",
  instanceId: "bench",
  logger: quiet,
  debounceMs: 2_000,
  maxWaitMs: 10_000,
  ...(process.env.BENCH_FLUSH_MS ? { flushIntervalMs: Number(process.env.BENCH_FLUSH_MS) } : {}),
});
const handlers = collabHandlers({ rooms, authorizer, logger: quiet });
const server = Bun.serve<CollabSocketData>({
  port,
  hostname: "127.0.0.1",
  fetch: async (req, srv) => {
    if (new URL(req.url).pathname === "/mem") {
      Bun.gc(true);
      const m = process.memoryUsage();
      const s = rooms.stats();
      return Response.json({ rss: m.rss, heapUsed: m.heapUsed, rooms: s.rooms, conns: handlers.size });
    }
    return (await handleCollabUpgrade(req, srv, { authorizer })) ?? new Response(null);
  },
  websocket: {
    ...SOCKET_SETTINGS,
    open: handlers.open,
    message: handlers.message,
    drain: handlers.drain,
    close: handlers.close,
  },
});
process.on("SIGTERM", async () => {
  server.stop(true);
  await rooms.close();
  process.exit(0);
});
process.stdout.write(`ready ${server.port}\n`);
