/**
 * Both wire dialects with the real client libraries: @hocuspocus/provider (documents
 * multiplexed on one socket, token auth, readonly scope) and y-websocket's
 * WebsocketProvider (room in the URL, token as a query parameter).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { HocuspocusProvider, HocuspocusProviderWebsocket } from "@hocuspocus/provider";
import * as Y from "yjs";
import {
  type CollabTestServer,
  hocuspocusClient,
  MemoryCollabPersistence,
  startCollabServer,
  TableAuthorizer,
  textUpdate,
  waitFor,
  yWebsocketClient,
} from "../../test/fixtures/editor-server.ts";

let srv: CollabTestServer | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
  await srv?.stop();
  srv = undefined;
});

const text = (doc: Y.Doc) => doc.getText("t").toString();

function setup() {
  const persistence = new MemoryCollabPersistence();
  const auth = new TableAuthorizer();
  srv = startCollabServer({ persistence, authorizer: auth });
  return { persistence, auth, url: srv.url, docId: crypto.randomUUID() };
}

describe("collaboration wire protocols", () => {
  test("a Hocuspocus client and a y-websocket client edit one document together", async () => {
    const { persistence, auth, url, docId } = setup();
    const a = hocuspocusClient(url, docId, auth.issue({ [docId]: "editor" }));
    const b = yWebsocketClient(url, docId, auth.issue({ [docId]: "owner" }));
    cleanups.push(a.destroy, b.destroy);
    await a.synced();
    await b.synced();
    expect(a.events.authenticated).toBe("read-write");
    a.doc.getText("t").insert(0, "hello ");
    b.doc.getText("t").insert(0, "world");
    await waitFor("both see both edits", () => text(a.doc) === text(b.doc) && text(a.doc).length === 11);
    await waitFor("stored", () => persistence.text(docId) === text(a.doc));
    // Hocuspocus acknowledged its update (SyncStatus), so it has nothing unsynced.
    await waitFor("acked", () => !a.provider.hasUnsyncedChanges);
  });

  test("a late joiner receives the document, and the stored state is loaded for the first", async () => {
    const { persistence, auth, url, docId } = setup();
    persistence.states.set(docId, textUpdate("stored text"));
    const a = hocuspocusClient(url, docId, auth.issue({ [docId]: "editor" }));
    cleanups.push(a.destroy);
    await a.synced();
    await waitFor("stored text", () => text(a.doc) === "stored text");
    const b = yWebsocketClient(url, docId, auth.issue({ [docId]: "viewer" }));
    cleanups.push(b.destroy);
    await b.synced();
    expect(text(b.doc)).toBe("stored text");
  });

  test("a Hocuspocus viewer syncs with scope readonly, and its edits change nothing", async () => {
    const { persistence, auth, url, docId } = setup();
    const editor = hocuspocusClient(url, docId, auth.issue({ [docId]: "editor" }));
    const viewer = hocuspocusClient(url, docId, auth.issue({ [docId]: "viewer" }));
    cleanups.push(editor.destroy, viewer.destroy);
    await editor.synced();
    await viewer.synced();
    expect(viewer.events.authenticated).toBe("readonly");
    editor.doc.getText("t").insert(0, "by editor");
    await waitFor("viewer reads", () => text(viewer.doc) === "by editor");
    viewer.doc.getText("t").insert(0, "VIEWER ");
    // The server refuses it (SyncStatus false: the change stays unsynced on the viewer).
    await Bun.sleep(100);
    editor.doc.getText("t").insert(text(editor.doc).length, "!");
    await waitFor("viewer sees the editor's next edit", () => text(viewer.doc).endsWith("!"));
    await waitFor("stored", () => persistence.text(docId) === "by editor!");
    expect(text(editor.doc)).toBe("by editor!");
    expect(viewer.provider.hasUnsyncedChanges).toBe(true);
  });

  test("a y-websocket viewer syncs, and its edits change nothing", async () => {
    const { persistence, auth, url, docId } = setup();
    const editor = yWebsocketClient(url, docId, auth.issue({ [docId]: "editor" }));
    const viewer = yWebsocketClient(url, docId, auth.issue({ [docId]: "viewer" }));
    cleanups.push(editor.destroy, viewer.destroy);
    await editor.synced();
    await viewer.synced();
    editor.doc.getText("t").insert(0, "by editor");
    await waitFor("viewer reads", () => text(viewer.doc) === "by editor");
    viewer.doc.getText("t").insert(0, "VIEWER ");
    await Bun.sleep(100);
    editor.doc.getText("t").insert(text(editor.doc).length, "!");
    await waitFor("stored", () => persistence.text(docId) === "by editor!");
    expect(text(editor.doc)).toBe("by editor!");
    // A reconnect (step 1/2 exchange again) does not smuggle the edit in either.
    viewer.provider.disconnect();
    viewer.provider.connect();
    await waitFor("viewer resynced", () => viewer.provider.synced);
    await Bun.sleep(100);
    expect(text(editor.doc)).toBe("by editor!");
    expect(persistence.text(docId)).toBe("by editor!");
  });

  test("refusals: a bad token or a document without a role is denied, with the reason", async () => {
    const { auth, url, docId } = setup();
    const bad = hocuspocusClient(url, docId, "not-a-jwt");
    const stranger = hocuspocusClient(url, docId, auth.issue({ [crypto.randomUUID()]: "owner" }));
    const notUuid = hocuspocusClient(url, "my-notes", auth.issue({ "my-notes": "owner" }));
    cleanups.push(bad.destroy, stranger.destroy, notUuid.destroy);
    await waitFor("denials", () => !!bad.events.failed && !!stranger.events.failed && !!notUuid.events.failed);
    expect(bad.events.failed).toStartWith("unauthenticated:");
    expect(stranger.events.failed).toStartWith("not_found:");
    expect(notUuid.events.failed).toStartWith("not_found:");
    expect(bad.events.authenticated).toBe("");

    // y-websocket: refused before the upgrade, with the HTTP status.
    const http = url.replace(/^ws/, "http");
    const upgrade = {
      Upgrade: "websocket",
      Connection: "Upgrade",
      "Sec-WebSocket-Version": "13",
      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    };
    expect((await fetch(`${http}/${docId}?token=not-a-jwt`, { headers: upgrade })).status).toBe(401);
    expect((await fetch(`${http}/${docId}`, { headers: upgrade })).status).toBe(401);
    expect((await fetch(`${http}/${docId}?token=${auth.issue({})}`, { headers: upgrade })).status).toBe(404);
    expect((await fetch(`${http}/${docId}`)).status).toBe(426);
  });

  test("one Hocuspocus socket multiplexes two documents", async () => {
    const { persistence, auth, url } = setup();
    const d1 = crypto.randomUUID();
    const d2 = crypto.randomUUID();
    const token = auth.issue({ [d1]: "editor", [d2]: "viewer" });
    const socket = new HocuspocusProviderWebsocket({ url });
    const p1 = new HocuspocusProvider({ websocketProvider: socket, name: d1, token, document: new Y.Doc() });
    const p2 = new HocuspocusProvider({ websocketProvider: socket, name: d2, token, document: new Y.Doc() });
    p1.attach();
    p2.attach();
    cleanups.push(() => {
      p1.destroy();
      p2.destroy();
      socket.destroy();
    });
    await waitFor("both synced", () => p1.synced && p2.synced);
    expect(p1.authorizedScope).toBe("read-write");
    expect(p2.authorizedScope).toBe("readonly");
    const other = yWebsocketClient(url, d2, auth.issue({ [d2]: "editor" }));
    cleanups.push(other.destroy);
    await other.synced();
    p1.document.getText("t").insert(0, "one");
    other.doc.getText("t").insert(0, "two");
    await waitFor("each document got its own edit", () => text(p2.document) === "two");
    await waitFor("stored", () => persistence.text(d1) === "one" && persistence.text(d2) === "two");
    expect(text(p1.document)).toBe("one");
  });

  test("awareness reaches the other clients and leaves with its client", async () => {
    const { auth, url, docId } = setup();
    const a = hocuspocusClient(url, docId, auth.issue({ [docId]: "editor" }));
    const b = yWebsocketClient(url, docId, auth.issue({ [docId]: "viewer" }));
    cleanups.push(a.destroy, b.destroy);
    await a.synced();
    await b.synced();
    a.provider.setAwarenessField("user", { name: "Ada" });
    b.provider.awareness.setLocalStateField("user", { name: "Bob" });
    const names = (states: Map<number, Record<string, unknown>>) =>
      [...states.values()]
        .map((s) => (s.user as { name?: string } | undefined)?.name)
        .filter(Boolean)
        .sort();
    await waitFor("b sees Ada", () => names(b.provider.awareness.getStates()).includes("Ada"));
    await waitFor("a sees Bob", () => names(a.provider.awareness?.getStates() ?? new Map()).includes("Bob"));
    a.destroy();
    await waitFor("Ada left", () => !names(b.provider.awareness.getStates()).includes("Ada"));
  });

  test("a document that cannot be loaded refuses clients until it can, and is never overwritten", async () => {
    const { persistence, auth, url, docId } = setup();
    persistence.states.set(docId, textUpdate("precious"));
    persistence.failLoads = 3;
    const a = hocuspocusClient(url, docId, auth.issue({ [docId]: "editor" }));
    const b = yWebsocketClient(url, docId, auth.issue({ [docId]: "editor" }));
    cleanups.push(a.destroy, b.destroy);
    // The clients retry on their own; once a load succeeds they sync the stored text.
    await a.synced();
    await b.synced();
    expect(persistence.failLoads).toBe(0);
    await waitFor("stored text", () => text(a.doc) === "precious" && text(b.doc) === "precious");
    b.doc.getText("t").insert(0, "still ");
    await waitFor("stored", () => persistence.text(docId) === "still precious");
  });
});
