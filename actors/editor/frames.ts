/**
 * The y-protocols frames a collaboration room writes, built once per room and tick and
 * framed per audience: a plain y-websocket client takes the message as is; a Hocuspocus
 * client takes it behind its document address (a lib0 varString: the document name, or
 * `name\0session` for session-aware providers). Framing is a copy of a short prefix, so
 * one encode serves every connection of the room.
 */
import * as encoding from "lib0/encoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as Y from "yjs";

/** Top-level message types (y-websocket and Hocuspocus share 0-3). */
export const MSG = {
  sync: 0,
  awareness: 1,
  auth: 2,
  queryAwareness: 3,
  /** Hocuspocus only. */
  stateless: 5,
  close: 7,
  syncStatus: 8,
  ping: 9,
  pong: 10,
} as const;

/** y-protocols sync sub-types. */
export const SYNC = { step1: 0, step2: 1, update: 2 } as const;

/** Hocuspocus auth sub-types (@hocuspocus/common AuthMessageType). */
export const AUTH = { token: 0, permissionDenied: 1, authenticated: 2 } as const;

function build(write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  write(e);
  return encoding.toUint8Array(e);
}

export function syncStep1Body(doc: Y.Doc): Uint8Array {
  return build((e) => {
    encoding.writeVarUint(e, MSG.sync);
    encoding.writeVarUint(e, SYNC.step1);
    encoding.writeVarUint8Array(e, Y.encodeStateVector(doc));
  });
}

/** Step 2: everything the peer (state vector `sv`, or nothing) lacks. */
export function syncStep2Body(doc: Y.Doc, sv?: Uint8Array): Uint8Array {
  return build((e) => {
    encoding.writeVarUint(e, MSG.sync);
    encoding.writeVarUint(e, SYNC.step2);
    encoding.writeVarUint8Array(e, Y.encodeStateAsUpdate(doc, sv));
  });
}

export function updateBody(update: Uint8Array): Uint8Array {
  return build((e) => {
    encoding.writeVarUint(e, MSG.sync);
    encoding.writeVarUint(e, SYNC.update);
    encoding.writeVarUint8Array(e, update);
  });
}

export function awarenessBody(awareness: awarenessProtocol.Awareness, clients: number[]): Uint8Array {
  return build((e) => {
    encoding.writeVarUint(e, MSG.awareness);
    encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(awareness, clients));
  });
}

/** Hocuspocus: the server applied (true) or refused (false, read-only) the client's update. */
export function syncStatusBody(applied: boolean): Uint8Array {
  return build((e) => {
    encoding.writeVarUint(e, MSG.syncStatus);
    encoding.writeVarUint(e, applied ? 1 : 0);
  });
}

export function authenticatedBody(readOnly: boolean): Uint8Array {
  return build((e) => {
    encoding.writeVarUint(e, MSG.auth);
    encoding.writeVarUint(e, AUTH.authenticated);
    encoding.writeVarString(e, readOnly ? "readonly" : "read-write");
  });
}

export function permissionDeniedBody(reason: string): Uint8Array {
  return build((e) => {
    encoding.writeVarUint(e, MSG.auth);
    encoding.writeVarUint(e, AUTH.permissionDenied);
    encoding.writeVarString(e, reason);
  });
}

/** The bytes of a lib0 varString, to prefix bodies with a Hocuspocus address. */
export function addressPrefix(address: string): Uint8Array {
  return build((e) => encoding.writeVarString(e, address));
}

export function framed(prefix: Uint8Array | null, body: Uint8Array): Uint8Array {
  if (prefix === null) return body;
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

/**
 * One body framed for several audiences, each framing computed once: the cache a
 * broadcast uses so 50 connections of one address cost one copy, not 50.
 */
export class FrameCache {
  private readonly byAddress = new Map<string | null, Uint8Array>();
  constructor(readonly body: Uint8Array) {}

  for(peer: { readonly address: string | null; readonly prefix: Uint8Array | null }): Uint8Array {
    let f = this.byAddress.get(peer.address);
    if (f === undefined) {
      f = framed(peer.prefix, this.body);
      this.byAddress.set(peer.address, f);
    }
    return f;
  }
}
