/**
 * The collaboration rooms of one instance: a Registry of CollabRoom actors keyed by
 * document UUID (single-flight load, idle unload re-checked after the final flush, a
 * key reloaded only after its previous room's teardown), and the LiveRooms port the
 * editor REST PATCH uses to apply an edit to the live document.
 *
 * Unload: a room with no connections and no server-side callers is flushed and unloaded
 * `unloadDelayMs` after it became idle (a short grace absorbs reconnect flaps). A flush
 * that fails keeps the room loaded and is retried by the saver; shutdown (close) flushes
 * every room before tearing it down.
 */
import type * as Y from "yjs";
import type { CollabPersistence, LiveRooms } from "../../domain/editor/ports.ts";
import type { UpdatedBy } from "../../domain/editor/types.ts";
import type { PubSub } from "../../domain/ports.ts";
import { Registry } from "../registry.ts";
import { CollabRoom } from "./room.ts";
import { ROOM_DEFAULTS, type RoomLogger, type RoomOptions } from "./types.ts";

export interface CollabRoomsOptions extends Partial<RoomOptions> {
  persistence: CollabPersistence;
  /** Fan-out between instances; null on a single instance. */
  pubsub: PubSub | null;
  /** Channel prefix, e.g. `${redisPrefix}:collab`; a room's channel is `${prefix}:${docId}`. */
  channelPrefix: string;
  instanceId: string;
  logger: RoomLogger;
  /** Grace after the last client leaves before the room is flushed and unloaded (default 1 s). */
  unloadDelayMs?: number;
  /** Most rooms held at once (default 100,000); beyond it idle rooms are evicted. */
  maxRooms?: number;
}

export interface CollabRoomsStats {
  rooms: number;
  peers: number;
  dirty: number;
}

export class CollabRooms implements LiveRooms {
  private readonly registry: Registry<string, CollabRoom>;

  constructor(opts: CollabRoomsOptions) {
    const roomOpts: RoomOptions = {
      debounceMs: opts.debounceMs ?? ROOM_DEFAULTS.debounceMs,
      maxWaitMs: opts.maxWaitMs ?? ROOM_DEFAULTS.maxWaitMs,
      mailboxMaxCount: opts.mailboxMaxCount ?? ROOM_DEFAULTS.mailboxMaxCount,
      mailboxMaxBytes: opts.mailboxMaxBytes ?? ROOM_DEFAULTS.mailboxMaxBytes,
      flushIntervalMs: opts.flushIntervalMs ?? ROOM_DEFAULTS.flushIntervalMs,
    };
    this.registry = new Registry<string, CollabRoom>({
      name: "collab-rooms",
      create: (docId) =>
        CollabRoom.load(
          docId,
          {
            persistence: opts.persistence,
            pubsub: opts.pubsub,
            channel: `${opts.channelPrefix}:${docId}`,
            instanceId: opts.instanceId,
            logger: opts.logger,
          },
          roomOpts,
        ),
      destroy: (_docId, room) => room.close(),
      isIdle: (room) => room.idle,
      beforeUnload: (_docId, room) => room.flush(),
      idleMs: Math.max(1, opts.unloadDelayMs ?? 1_000),
      maxSize: opts.maxRooms ?? 100_000,
      onError: (e) =>
        opts.logger.error(
          { err: e.error, doc_id: e.key, phase: e.phase },
          e.phase === "before_unload"
            ? "collab room: flush before unload failed; the room stays loaded and retries"
            : "collab room: teardown failed",
        ),
    });
  }

  /** The loaded room, loading it once however many connections ask; rejects when the load fails. */
  room(docId: string): Promise<CollabRoom> {
    return this.registry.get(docId);
  }

  /** The room if loaded (no load, no use counted). */
  peek(docId: string): CollabRoom | undefined {
    return this.registry.peek(docId);
  }

  async withDoc(docId: string, origin: unknown, fn: (doc: Y.Doc) => void, by?: UpdatedBy): Promise<void> {
    const room = await this.registry.get(docId);
    await room.edit(origin, fn, by);
  }

  /** Flushes and unloads every idle room now (tests, benchmarks). */
  unloadIdle(): Promise<number> {
    return this.registry.unloadIdle();
  }

  stats(): CollabRoomsStats {
    let peers = 0;
    let dirty = 0;
    for (const key of this.registry.keys()) {
      const room = this.registry.peek(key);
      if (!room) continue;
      peers += room.peerCount;
      if (room.dirty) dirty++;
    }
    return { rooms: this.registry.size, peers, dirty };
  }

  /** Flushes every room and unloads it; refuses further loads. Idempotent. */
  close(): Promise<void> {
    return this.registry.close();
  }
}
