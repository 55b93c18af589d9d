/**
 * A collaboration deployment apart from the API (CAIRN_COLLAB_API_URL): one service instance
 * serves the REST API, a second (its own data directory, no editor documents of its own) runs
 * the collaboration sockets and loads, authorises and stores every room over HTTP
 * (GET/PUT /v1/editor/documents/{id}/yjs with X-Collab-Secret, the auth webhook). Real
 * @hocuspocus/provider and y-websocket clients edit; the API's GET shows their edits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError } from "../../domain/errors.ts";
import { addParagraph, docXml, hocuspocusClient, yWebsocketClient } from "../../test/fixtures/editor-server.ts";
import { startTestService, type TestService } from "../../test/harness.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

const SECRET = `collab-secret-${crypto.randomUUID()}`;
let api: TestService;
let apiServed: Served;
let collab: TestService;
let collabServed: Served;
let key: string;
let jwt: string;
let userId: number;
const cleanups: (() => void)[] = [];

const para = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] });
const collabUrl = () => `${collabServed.wsUrl}/v1/editor/collab`;

const callApi = (method: string, path: string, body?: unknown) =>
  api.request(path, {
    method,
    headers: { "x-api-key": key, authorization: `Bearer ${jwt}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
async function createDoc(body: Record<string, unknown>): Promise<string> {
  const res = await callApi("POST", "/v1/editor/documents", body);
  expect(res.status).toBe(201);
  return ((await res.json()) as { doc_id: string }).doc_id;
}
async function apiDocument(docId: string) {
  const res = await callApi("GET", `/v1/editor/documents/${docId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { doc_ast: unknown; version: number; updated_by_type: string; updated_by_id: string };
}

beforeAll(async () => {
  api = await startTestService({ CAIRN_COLLAB_SECRET: SECRET });
  apiServed = serve(api.service);
  const u = await api.user("remote@collab.test", "enterprise", ["editor"]);
  userId = u.id;
  key = await api.apiKey(u.email);
  jwt = await api.token(u.email);
  collab = await startTestService({
    CAIRN_COLLAB_SECRET: SECRET,
    CAIRN_COLLAB_API_URL: apiServed.url,
    CAIRN_COLLAB_DEBOUNCE_MS: "50",
    CAIRN_COLLAB_MAX_WAIT_MS: "200",
    CAIRN_COLLAB_UNLOAD_MS: "100",
  });
  collabServed = serve(collab.service);
});
afterAll(async () => {
  for (const c of cleanups.splice(0)) c();
  await collabServed.stop();
  await collab.close();
  await apiServed.stop();
  await api.close();
});

describe("collaboration server with CAIRN_COLLAB_API_URL", () => {
  test("Hocuspocus: a document written through REST is loaded over HTTP, edited, and stored back", async () => {
    const docId = await createDoc({ title: "Remote", doc_ast: { type: "doc", content: [para("seeded by REST")] } });
    // The collaboration instance has no such document itself: everything goes over HTTP.
    const local = await collab.service.deps.editor.loadState(docId).catch((e: unknown) => e);
    expect(local).toBeInstanceOf(AppError);
    expect((local as AppError).code).toBe("not_found");

    const a = hocuspocusClient(collabUrl(), docId, jwt);
    cleanups.push(a.destroy);
    await a.synced();
    expect(a.events.authenticated).toBe("read-write");
    expect(docXml(a.doc)).toContain("seeded by REST"); // loaded through GET …/yjs

    addParagraph(a.doc, "typed on the collaboration server");
    await waitFor("acknowledged", () => !a.provider.hasUnsyncedChanges);
    await waitFor("the API shows the edit", async () => {
      const d = await apiDocument(docId);
      return JSON.stringify(d.doc_ast).includes("typed on the collaboration server");
    });
    const d = await apiDocument(docId);
    expect(d.doc_ast).toEqual({
      type: "doc",
      content: [para("seeded by REST"), para("typed on the collaboration server")],
    });
    expect(d).toMatchObject({ version: 2, updated_by_type: "user", updated_by_id: String(userId) });

    // Reconnecting after the room unloaded loads the stored state again, over HTTP.
    a.destroy();
    await waitFor("the room unloads", () => collab.service.collabRooms.peek(docId) === undefined);
    const again = yWebsocketClient(collabUrl(), docId, jwt);
    cleanups.push(again.destroy);
    await again.synced();
    expect(docXml(again.doc)).toBe(docXml(a.doc));
  });

  test("y-websocket: a never-edited document (null state) is edited and stored; strangers refused", async () => {
    const docId = await createDoc({ title: "Blank" });
    const before = await api.request(`/v1/editor/documents/${docId}/yjs`, { headers: { "x-collab-secret": SECRET } });
    expect(await before.json()).toEqual({ yjs_state: null });

    const b = yWebsocketClient(collabUrl(), docId, jwt);
    cleanups.push(b.destroy);
    await b.synced();
    expect(docXml(b.doc)).toBe("");
    addParagraph(b.doc, "first words");
    await waitFor("the API shows the edit", async () => {
      const d = await apiDocument(docId);
      return JSON.stringify(d.doc_ast).includes("first words");
    });
    expect((await apiDocument(docId)).doc_ast).toEqual({ type: "doc", content: [para("first words")] });

    // The webhook's refusals come back through the HTTP authoriser on the handshake.
    const upgrade = {
      Upgrade: "websocket",
      Connection: "Upgrade",
      "Sec-WebSocket-Version": "13",
      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    };
    const http = collabUrl().replace(/^ws/, "http");
    expect((await fetch(`${http}/${docId}?token=${encodeURIComponent(key)}`, { headers: upgrade })).status).toBe(401);
    expect((await fetch(`${http}/${crypto.randomUUID()}?token=${jwt}`, { headers: upgrade })).status).toBe(404);
  });
});
