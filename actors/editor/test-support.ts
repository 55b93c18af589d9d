/**
 * Set-ups shared by the room's unit tests (room.test.ts, inbox.test.ts): rooms over an
 * in-memory store with no other instances, closed after each test, and one loaded room.
 * Each test file states its own timing defaults (debounce, unload delay) once.
 */
import { afterEach } from "bun:test";
import type * as Y from "yjs";
import { MemoryCollabPersistence } from "../../test/fixtures/editor-server.ts";
import type { CollabRoom } from "./room.ts";
import { CollabRooms, type CollabRoomsOptions } from "./rooms.ts";

const quiet = { warn() {}, error() {} };

/** The text the tests type into (the shared type "t"). */
export const text = (doc: Y.Doc): string => doc.getText("t").toString();

export interface RoomHarness {
  /** Rooms over `persistence`: the file's defaults, then `over`. */
  rooms(persistence: MemoryCollabPersistence, over?: Partial<CollabRoomsOptions>): CollabRooms;
  /** A fresh store and its rooms, no room loaded yet. */
  fresh(over?: Partial<CollabRoomsOptions>): { p: MemoryCollabPersistence; rooms: CollabRooms };
  /** A fresh store, its rooms and one loaded room under a random id. */
  room(over?: Partial<CollabRoomsOptions>): Promise<{
    p: MemoryCollabPersistence;
    rooms: CollabRooms;
    id: string;
    room: CollabRoom;
  }>;
}

/**
 * Call at a test file's top level (it registers the afterEach that closes what it made);
 * `defaults`: the file's timings (debounce, max wait, unload delay, flush interval).
 */
export function roomHarness(defaults: Partial<CollabRoomsOptions>): RoomHarness {
  const open: CollabRooms[] = [];
  afterEach(async () => {
    for (const r of open.splice(0)) await r.close();
  });
  const rooms = (persistence: MemoryCollabPersistence, over: Partial<CollabRoomsOptions> = {}): CollabRooms => {
    const made = new CollabRooms({
      persistence,
      pubsub: null,
      channelPrefix: "t",
      instanceId: "i1",
      logger: quiet,
      ...defaults,
      ...over,
    });
    open.push(made);
    return made;
  };
  const fresh = (over: Partial<CollabRoomsOptions> = {}) => {
    const p = new MemoryCollabPersistence();
    return { p, rooms: rooms(p, over) };
  };
  return {
    rooms,
    fresh,
    async room(over = {}) {
      const { p, rooms: made } = fresh(over);
      const id = crypto.randomUUID();
      return { p, rooms: made, id, room: await made.room(id) };
    },
  };
}
