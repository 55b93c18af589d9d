/**
 * Issue 13 in the real service (embedded profile): an open editor connection stops writing
 * when its JWT expires (4401) and when its role on the document shrinks through the REST
 * sharing routes (downgraded to read-only, or closed with 4403), while the other people in
 * the room go on. What is stored is checked through the REST JSON view.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUserToken } from "../../http/auth/jwt.ts";
import { addParagraph, docXml, hocuspocusClient, yWebsocketClient } from "../../test/fixtures/editor-server.ts";
import { startTestService, type TestService } from "../../test/harness.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

interface Creds {
  id: number;
  key: string;
  jwt: string;
}

let svc: TestService;
let served: Served;
let owner: Creds;
const cleanups: (() => void)[] = [];

async function person(email: string): Promise<Creds> {
  // The tenant's editor role: otherwise every document is capped at viewer.
  const u = await svc.user(email, "enterprise", ["editor"]);
  return { id: u.id, key: await svc.apiKey(email), jwt: await svc.token(email) };
}

/** A JWT for `email` that expires `ttlSeconds` from now. */
async function shortToken(email: string, ttlSeconds: number): Promise<string> {
  const { config, secrets } = svc.service;
  const u = await svc.user(email);
  return signUserToken(
    { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds },
    { userId: u.id, email: u.email, tenantId: u.tenant_id },
  );
}

const call = (c: Creds, method: string, path: string, body?: unknown) =>
  svc.request(path, {
    method,
    headers: { "x-api-key": c.key, authorization: `Bearer ${c.jwt}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function createDoc(title: string): Promise<string> {
  const res = await call(owner, "POST", "/v1/editor/documents", { title });
  expect(res.status).toBe(201);
  return ((await res.json()) as { doc_id: string }).doc_id;
}

async function share(docId: string, userId: number, role: "viewer" | "editor" | null): Promise<void> {
  const path = `/v1/editor/documents/${docId}/members/${userId}`;
  const res = role ? await call(owner, "PUT", path, { role }) : await call(owner, "DELETE", path);
  expect(res.status).toBeLessThan(300);
}

/** The stored document as the REST JSON view shows it, once its room has saved and unloaded. */
async function storedText(docId: string): Promise<string> {
  await waitFor("the room saved and unloaded", () => svc.service.collabRooms.peek(docId) === undefined, {
    timeoutMs: 10_000,
  });
  const res = await call(owner, "GET", `/v1/editor/documents/${docId}`);
  expect(res.status).toBe(200);
  return JSON.stringify(((await res.json()) as { doc_ast: unknown }).doc_ast);
}

const collabUrl = () => `${served.wsUrl}/v1/editor/collab`;
const roomXml = (docId: string) => {
  const room = svc.service.collabRooms.peek(docId);
  return room ? docXml(room.doc) : "";
};

beforeAll(async () => {
  svc = await startTestService({ CAIRN_COLLAB_DEBOUNCE_MS: "20", CAIRN_COLLAB_UNLOAD_MS: "50" });
  served = serve(svc.service);
  owner = await person("owner@revoke.test");
});
afterAll(async () => {
  for (const c of cleanups.splice(0)) c();
  await served?.stop();
  await svc?.close();
});

describe("editor connections after their token expires", () => {
  test("edits before exp are stored; the socket closes 4401; what is typed after exp never is", async () => {
    const docId = await createDoc("Expiring");
    // Whole seconds: this token expires two to three seconds from now.
    const c = hocuspocusClient(collabUrl(), docId, await shortToken("owner@revoke.test", 3));
    const closes: number[] = [];
    c.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
    cleanups.push(c.destroy);
    await c.synced();
    addParagraph(c.doc, "before expiry");
    await waitFor("applied", () => roomXml(docId).includes("before expiry"));

    await waitFor("closed at expiry", () => closes.length > 0, { timeoutMs: 15_000 });
    expect(closes[0]).toBe(4401);
    // The provider reconnects with the same token: refused, whatever it types stays local.
    await waitFor("re-authentication refused", () => c.events.failed !== "", { timeoutMs: 15_000 });
    expect(c.events.failed).toStartWith("unauthenticated:");
    addParagraph(c.doc, "after expiry");
    c.destroy();

    const stored = await storedText(docId);
    expect(stored).toContain("before expiry");
    expect(stored).not.toContain("after expiry");

    // A fresh token opens the document again and writes.
    const again = hocuspocusClient(collabUrl(), docId, owner.jwt);
    cleanups.push(again.destroy);
    await again.synced();
    expect(again.events.authenticated).toBe("read-write");
    expect(docXml(again.doc)).toContain("before expiry");
    expect(docXml(again.doc)).not.toContain("after expiry");
  });
});

describe("editor connections after their role changes", () => {
  test("editor -> viewer downgrades at once; removal closes 4403 (both dialects); the other editor goes on", async () => {
    const docId = await createDoc("Shared");
    const bob = await person("bob@revoke.test");
    const cat = await person("cat@revoke.test");
    await share(docId, bob.id, "editor");
    await share(docId, cat.id, "editor");
    const b = hocuspocusClient(collabUrl(), docId, bob.jwt);
    const by = yWebsocketClient(collabUrl(), docId, bob.jwt);
    const c = hocuspocusClient(collabUrl(), docId, cat.jwt);
    cleanups.push(b.destroy, by.destroy, c.destroy);
    await b.synced();
    await by.synced();
    await c.synced();
    expect(b.events.authenticated).toBe("read-write");
    addParagraph(b.doc, "bob as editor");
    await waitFor("bob's edit applied", () => roomXml(docId).includes("bob as editor"));

    await share(docId, bob.id, "viewer");
    await waitFor("bob told read-only", () => b.events.authenticated === "readonly");
    addParagraph(b.doc, "bob as viewer");
    // Awareness follows the update through the room's mailbox: once cat sees bob's mark,
    // the room has handled (and dropped) his update.
    b.provider.setAwarenessField("mark", "after-downgrade");
    await waitFor("cat sees bob's mark", () =>
      [...(c.provider.awareness?.getStates().values() ?? [])].some((s) => s.mark === "after-downgrade"),
    );
    expect(roomXml(docId)).not.toContain("bob as viewer");

    const closes: number[] = [];
    b.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
    by.provider.on("connection-close", (event: { code: number } | null) => closes.push(event?.code ?? 0));
    await share(docId, bob.id, null);
    await waitFor("both of bob's sockets closed", () => closes.length >= 2);
    expect(closes.slice(0, 2)).toEqual([4403, 4403]);

    addParagraph(c.doc, "cat goes on");
    await waitFor("cat still writes", () => roomXml(docId).includes("cat goes on"));
    for (const x of [b, by, c]) x.destroy();
    const stored = await storedText(docId);
    expect(stored).toContain("bob as editor");
    expect(stored).toContain("cat goes on");
    expect(stored).not.toContain("bob as viewer");
  });

  test("closing the document to the tenant (general access none) closes who held it through general access", async () => {
    const docId = await createDoc("Open, then closed");
    const dan = await person("dan@revoke.test");
    const eve = await person("eve@revoke.test");
    await share(docId, eve.id, "editor");
    expect(
      (await call(owner, "PUT", `/v1/editor/documents/${docId}/access`, { general_access: "editor" })).status,
    ).toBe(200);
    const d = hocuspocusClient(collabUrl(), docId, dan.jwt);
    const e = hocuspocusClient(collabUrl(), docId, eve.jwt);
    const closes: number[] = [];
    d.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
    e.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(-event.code));
    cleanups.push(d.destroy, e.destroy);
    await d.synced();
    await e.synced();
    expect(d.events.authenticated).toBe("read-write");

    expect((await call(owner, "PUT", `/v1/editor/documents/${docId}/access`, { general_access: "none" })).status).toBe(
      200,
    );
    await waitFor("dan's socket closed", () => closes.length > 0);
    expect(closes).toEqual([4403]);
    // Eve is a member: her access did not change and her socket stays.
    addParagraph(e.doc, "eve still edits");
    await waitFor("eve still writes", () => roomXml(docId).includes("eve still edits"));
    expect(closes).toEqual([4403]);
  });
});
