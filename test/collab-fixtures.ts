/**
 * Collaboration test helpers: small in-memory implementations of our own ports
 * (CollabPersistence with injectable failures, a token-table CollabAuthorizer), a real
 * Bun server speaking both collaboration dialects on a free port, and real clients
 * (@hocuspocus/provider, y-websocket's WebsocketProvider).
 */
import { HocuspocusProvider, HocuspocusProviderWebsocket } from "@hocuspocus/provider";
import type { Server } from "bun";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { type CollabPeer, CollabRooms, type CollabRoomsOptions } from "../actors/index.ts";
import { YDOC_FIELD } from "../domain/editor/index.ts";
import type {
  CollabAuthorizer,
  CollabGrant,
  CollabPersistence,
  EditorRole,
  UpdatedBy,
} from "../domain/editor/ports.ts";
import { AppError } from "../domain/errors.ts";
import type { PubSub } from "../domain/ports.ts";
import {
  type CollabHandlers,
  type CollabHandlersDeps,
  type CollabSocketData,
  collabHandlers,
  handleCollabUpgrade,
  SOCKET_SETTINGS,
} from "../sockets/index.ts";
import { waitFor } from "./wait.ts";

/** Appends a paragraph to the Tiptap fragment, as the Collaboration extension would. */
export function addParagraph(doc: Y.Doc, text: string): void {
  const p = new Y.XmlElement("paragraph");
  p.insert(0, [new Y.XmlText(text)]);
  const frag = doc.getXmlFragment(YDOC_FIELD);
  frag.insert(frag.length, [p]);
}

/** The Tiptap fragment as XML, to compare what two replicas hold. */
export const docXml = (doc: Y.Doc): string => doc.getXmlFragment(YDOC_FIELD).toString();

/** CollabPersistence in memory; stores merge like the real one; failures on demand. */
export class MemoryCollabPersistence implements CollabPersistence {
  readonly states = new Map<string, Uint8Array>();
  readonly stores: { docId: string; by: UpdatedBy }[] = [];
  loads = 0;
  /** While > 0, each load (store) fails and decrements it. */
  failLoads = 0;
  failStores = 0;

  async load(docId: string): Promise<Uint8Array | null> {
    this.loads++;
    await Bun.sleep(1);
    if (this.failLoads > 0) {
      this.failLoads--;
      throw new Error("injected load failure");
    }
    return this.states.get(docId) ?? null;
  }

  async store(docId: string, state: Uint8Array, by: UpdatedBy): Promise<void> {
    await Bun.sleep(1);
    if (this.failStores > 0) {
      this.failStores--;
      throw new Error("injected store failure");
    }
    const cur = this.states.get(docId);
    this.states.set(docId, cur ? Y.mergeUpdates([cur, state]) : state);
    this.stores.push({ docId, by });
  }

  /** The stored document's text field, for assertions. */
  text(docId: string, field = "t"): string {
    const doc = new Y.Doc();
    const s = this.states.get(docId);
    if (s) Y.applyUpdate(doc, s);
    return doc.getText(field).toString();
  }
}

/** Tokens issued by the test: token -> user and per-document role. */
export class TableAuthorizer implements CollabAuthorizer {
  private readonly tokens = new Map<string, { userId: number; roles: Map<string, EditorRole> }>();
  private nextUser = 1;

  issue(roles: Record<string, EditorRole>): string {
    const token = `tok-${crypto.randomUUID()}`;
    this.tokens.set(token, { userId: this.nextUser++, roles: new Map(Object.entries(roles)) });
    return token;
  }

  async authorize(token: string, documentName: string): Promise<CollabGrant> {
    const t = this.tokens.get(token);
    if (!t) throw new AppError("unauthenticated", "Invalid token");
    const role = t.roles.get(documentName);
    if (!role) throw new AppError("not_found", "Editor document not found");
    return { readOnly: role === "viewer", role, tenantId: "t", userId: t.userId };
  }
}

export interface CollabTestServer {
  rooms: CollabRooms;
  handlers: CollabHandlers;
  server: Server<CollabSocketData>;
  /** ws://127.0.0.1:<port>/v1/editor/collab */
  url: string;
  stop(): Promise<void>;
}

const quiet = { info() {}, warn() {}, error() {} };

export function startCollabServer(opts: {
  persistence: CollabPersistence;
  authorizer: CollabAuthorizer;
  pubsub?: PubSub | null;
  instanceId?: string;
  rooms?: Partial<CollabRoomsOptions>;
  /** Socket options: a clock, an access-change bus, limits. */
  sockets?: Partial<Pick<CollabHandlersDeps, "now" | "revocations" | "limits">>;
}): CollabTestServer {
  const rooms = new CollabRooms({
    persistence: opts.persistence,
    pubsub: opts.pubsub ?? null,
    channelPrefix: "test:collab",
    instanceId: opts.instanceId ?? crypto.randomUUID(),
    logger: quiet,
    debounceMs: 20,
    maxWaitMs: 200,
    unloadDelayMs: 50,
    ...opts.rooms,
  });
  const handlers = collabHandlers({ rooms, authorizer: opts.authorizer, logger: quiet, ...opts.sockets });
  const server = Bun.serve<CollabSocketData>({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req, srv) =>
      (await handleCollabUpgrade(req, srv, { authorizer: opts.authorizer })) ?? new Response(null),
    websocket: {
      ...SOCKET_SETTINGS,
      open: handlers.open,
      message: handlers.message,
      drain: handlers.drain,
      close: handlers.close,
    },
  });
  return {
    rooms,
    handlers,
    server,
    url: `ws://127.0.0.1:${server.port}/v1/editor/collab`,
    stop: async () => {
      server.stop(true);
      await rooms.close();
    },
  };
}

/** A Hocuspocus client on its own socket. */
export function hocuspocusClient(url: string, docId: string, token: string, doc = new Y.Doc()) {
  const socket = new HocuspocusProviderWebsocket({ url, delay: 20, maxAttempts: 0, minDelay: 20, maxDelay: 200 });
  const events = { authenticated: "" as string, failed: "" as string };
  const provider = new HocuspocusProvider({
    websocketProvider: socket,
    name: docId,
    token,
    document: doc,
    onAuthenticated: ({ scope }) => {
      events.authenticated = scope;
    },
    onAuthenticationFailed: ({ reason }) => {
      events.failed = reason;
    },
  });
  // A provider given its socket does not attach itself.
  provider.attach();
  return {
    doc,
    provider,
    events,
    synced: () => waitFor(`hocuspocus ${docId} synced`, () => provider.synced),
    destroy: () => {
      provider.destroy();
      socket.destroy();
    },
  };
}

/** A plain y-websocket client (room in the URL, token as a query parameter). */
export function yWebsocketClient(url: string, docId: string, token: string, doc = new Y.Doc()) {
  const provider = new WebsocketProvider(url, docId, doc, {
    params: { token },
    maxBackoffTime: 200,
    // Clients in one process would otherwise sync through BroadcastChannel, around the server.
    disableBc: true,
  });
  return {
    doc,
    provider,
    synced: () => waitFor(`y-websocket ${docId} synced`, () => provider.synced),
    destroy: () => provider.destroy(),
  };
}

export { waitFor };

/** A CollabPeer that records frames; `status` decides what each send reports (backpressure tests). */
export class RecordingPeer implements CollabPeer {
  readonly id = crypto.randomUUID();
  readonly address: string | null = null;
  readonly prefix: Uint8Array | null = null;
  readonly hocuspocus = false;
  readonly by: UpdatedBy;
  readonly frames: Uint8Array[] = [];
  /** What send() answers: > 0 sent, -1 queued under backpressure, 0 dropped. */
  status = 1;
  closed: { code: number; reason: string } | null = null;

  constructor(
    readonly readOnly = false,
    userId = "1",
  ) {
    this.by = { updated_by_type: "user", updated_by_id: userId };
  }

  send(frame: Uint8Array): number {
    if (this.status !== 0) this.frames.push(frame);
    return this.status;
  }

  close(code: number, reason: string): void {
    this.closed = { code, reason };
  }

  /** Sync-update frames received (y-protocols type 0, sub-type 2). */
  updateFrames(): Uint8Array[] {
    return this.frames.filter((f) => f[0] === 0 && f[1] === 2);
  }

  /** A document built from every sync frame received (step 2 and updates). */
  replay(): Y.Doc {
    const doc = new Y.Doc();
    for (const f of this.frames) {
      const dec = decoding.createDecoder(f);
      if (decoding.readVarUint(dec) !== 0) continue;
      const sub = decoding.readVarUint(dec);
      if (sub === 1 || sub === 2) Y.applyUpdate(doc, decoding.readVarUint8Array(dec));
    }
    return doc;
  }
}

/** A client frame: a sync update carrying `update`. */
export function updateFrame(update: Uint8Array): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, 0);
  encoding.writeVarUint(e, 2);
  encoding.writeVarUint8Array(e, update);
  return encoding.toUint8Array(e);
}

/** An update inserting `text` at the start of field "t", from a scratch doc. */
export function textUpdate(text: string, base?: Y.Doc): Uint8Array {
  const doc = new Y.Doc();
  if (base) Y.applyUpdate(doc, Y.encodeStateAsUpdate(base));
  const sv = Y.encodeStateVector(doc);
  doc.getText("t").insert(0, text);
  return Y.encodeStateAsUpdate(doc, sv);
}
