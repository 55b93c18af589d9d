/** The contracts of a collaboration room: its peers (the socket layer), options and dependencies. */
import type { CollabPersistence } from "../../domain/editor/ports.ts";
import type { UpdatedBy } from "../../domain/editor/types.ts";
import type { PubSub } from "../../domain/ports.ts";

/** One client's view of a room, implemented by the socket layer. */
export interface CollabPeer {
  readonly id: string;
  /** Hocuspocus document address (name, or name\0session); null for y-websocket framing. */
  readonly address: string | null;
  /** The varString bytes of `address`, or null. */
  readonly prefix: Uint8Array | null;
  /** Edits of a read-only peer are dropped; the socket layer flips it when access is re-checked. */
  readOnly: boolean;
  /** Hocuspocus clients get a SyncStatus ack per update and the server's step 1 after its step 2. */
  readonly hocuspocus: boolean;
  /** Recorded as updated_by on saves after this peer's edits. */
  readonly by: UpdatedBy;
  /** Bun's ServerWebSocket.send status: -1 queued under backpressure, 0 dropped, > 0 sent. */
  send(frame: Uint8Array): number;
  close(code: number, reason: string): void;
}

export interface RoomLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RoomOptions {
  debounceMs: number;
  maxWaitMs: number;
  /** Mailbox bounds; a frame that does not fit is refused and its connection closed (1013). */
  mailboxMaxCount: number;
  mailboxMaxBytes: number;
  /** Least time between two broadcasts of one room (0: every event-loop turn). */
  flushIntervalMs: number;
}

export const ROOM_DEFAULTS: RoomOptions = {
  debounceMs: 2_000,
  maxWaitMs: 10_000,
  mailboxMaxCount: 10_000,
  mailboxMaxBytes: 32 * 1024 * 1024,
  flushIntervalMs: 4,
};

export interface RoomDeps {
  persistence: CollabPersistence;
  /** Cross-instance fan-out; null on a single instance. */
  pubsub: PubSub | null;
  channel: string;
  instanceId: string;
  logger: RoomLogger;
}
