/**
 * A room's mailbox (STYLE habit 8): what queues for the room's one loop — client frames,
 * messages from other instances, server-side edits — bounded by count and bytes and refused
 * past either (the socket layer closes a connection whose frame is refused, 1013; a refused
 * remote message is recovered by a state-vector request). An edit that will never run (the room closed, or its
 * handler threw) has its reply rejected, so no caller waits forever. Split from room.ts.
 */
import type * as Y from "yjs";
import type { UpdatedBy } from "../../domain/editor/types.ts";
import { Actor, type Reply } from "../actor.ts";
import type { Wire } from "./remote.ts";
import type { CollabPeer, RoomDeps, RoomOptions } from "./types.ts";

export type RoomMessage =
  | { t: "frame"; peer: CollabPeer; data: Uint8Array }
  | { t: "remote"; wire: Wire }
  | { t: "edit"; origin: unknown; fn: (doc: Y.Doc) => void; by: UpdatedBy | undefined; reply: Reply<void> };

/** The actor that hands `room` its messages one at a time. */
export function roomActor<S>(
  docId: string,
  deps: RoomDeps,
  opts: RoomOptions,
  room: S,
  handle: (room: S, m: RoomMessage) => void,
): Actor<RoomMessage, S> {
  return new Actor<RoomMessage, S>({
    name: `collab-room:${docId}`,
    mailbox: {
      maxCount: opts.mailboxMaxCount,
      maxBytes: opts.mailboxMaxBytes,
      sizeOf: (m) => (m.t === "frame" ? m.data.byteLength + 64 : m.t === "remote" ? m.wire.d.length + 64 : 256),
      policy: "reject",
      onDiscard: (m) => {
        if (m.t === "edit") m.reply.reject(new Error(`collab room ${docId} closed before the edit ran`));
      },
    },
    init: () => room,
    handle,
    onEvent: (e) => {
      if (e.type === "handler_failed") {
        deps.logger.error({ err: e.error, doc_id: docId }, "collab room handler failed");
        if (e.message.t === "edit") e.message.reply.reject(e.error);
      }
    },
  });
}
