/**
 * A CRDT thread: merges a stored Yjs state with an incoming one and derives doc_ast
 * (domain/editor `mergeStates`), so large documents never block the service's event loop.
 */
import { mergeStates } from "../../domain/editor/ydoc.ts";

declare const self: Worker;

export interface ToMergeWorker {
  id: number;
  stored: Uint8Array | null;
  incoming: Uint8Array;
}

export type FromMergeWorker =
  | { id: number; ok: true; state: Uint8Array; docAst: Record<string, unknown> }
  | { id: number; ok: false; message: string };

self.onmessage = (e: MessageEvent<ToMergeWorker>) => {
  const { id, stored, incoming } = e.data;
  let reply: FromMergeWorker;
  try {
    const { state, docAst } = mergeStates(stored, incoming);
    reply = { id, ok: true, state, docAst };
  } catch (err) {
    reply = { id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
