/**
 * The collaboration sockets inside the real service (embedded profile): editor documents
 * from the REST API, user JWTs checked by the editor service's authoriser, state stored
 * through the editor service, and a real restart on the same data directory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Y from "yjs";
import { addParagraph, docXml, hocuspocusClient, yWebsocketClient } from "../../test/fixtures/editor-server.ts";
import { startTestService, type TestService } from "../../test/harness.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

interface Creds {
  key: string;
  jwt: string;
}

const dataDir = mkdtempSync(join(tmpdir(), "cairn-collab-"));
const slug = `collab-${crypto.randomUUID().slice(0, 8)}`;
let svc: TestService;
let served: Served;
let owner: Creds | undefined;
let reader: Creds;
const cleanups: (() => void)[] = [];

async function start(): Promise<void> {
  // A long debounce: what survives the restart was saved by the shutdown flush.
  svc = await startTestService(
    { CAIRN_COLLAB_DEBOUNCE_MS: "60000", CAIRN_COLLAB_MAX_WAIT_MS: "60000" },
    { dataDir, tenantSlug: slug },
  );
  served = serve(svc.service);
  if (owner) return; // a restart: the same data directory still holds the users and keys
  await svc.user("owner@collab.test", "enterprise", ["editor"]); // a tenant role that may create documents
  owner = { key: await svc.apiKey("owner@collab.test"), jwt: await svc.token("owner@collab.test") };
  reader = { key: await svc.apiKey("reader@collab.test"), jwt: await svc.token("reader@collab.test") };
}

async function stop(): Promise<void> {
  for (const c of cleanups.splice(0)) c();
  await served.stop();
  await svc.service.close();
}

const call = (c: Creds | undefined, method: string, path: string, body?: unknown) =>
  svc.request(path, {
    method,
    headers: { "x-api-key": c?.key ?? "", authorization: `Bearer ${c?.jwt}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function createDoc(title: string): Promise<string> {
  const res = await call(owner, "POST", "/v1/editor/documents", { title, general_access: "viewer" });
  expect(res.status).toBe(201);
  return ((await res.json()) as { doc_id: string }).doc_id;
}

const ownerJwt = () => owner?.jwt ?? "";
const collabUrl = () => `${served.wsUrl}/v1/editor/collab`;

beforeAll(start);
afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("collaboration in the service", () => {
  test("the owner edits with a JWT; a general-access viewer is read-only; API keys and strangers are refused", async () => {
    const docId = await createDoc("Plan");
    const a = hocuspocusClient(collabUrl(), docId, ownerJwt());
    const v = hocuspocusClient(collabUrl(), docId, reader.jwt);
    const vy = yWebsocketClient(collabUrl(), docId, reader.jwt);
    const byKey = hocuspocusClient(collabUrl(), docId, owner?.key ?? "");
    cleanups.push(a.destroy, v.destroy, vy.destroy, byKey.destroy);
    await a.synced();
    await v.synced();
    await vy.synced();
    expect(a.events.authenticated).toBe("read-write");
    expect(v.events.authenticated).toBe("readonly");
    await waitFor("the API key is refused", () => byKey.events.failed !== "");
    expect(byKey.events.failed).toStartWith("unauthenticated:");

    addParagraph(a.doc, "written by the owner");
    await waitFor("viewers read it", () => docXml(v.doc) === docXml(a.doc) && docXml(vy.doc) === docXml(a.doc));
    addParagraph(v.doc, "viewer via hocuspocus");
    addParagraph(vy.doc, "viewer via y-websocket");
    await Bun.sleep(150);
    addParagraph(a.doc, "second");
    await waitFor("the owner's second paragraph", () => docXml(vy.doc).includes("second"));
    expect(docXml(a.doc)).not.toContain("viewer via");

    // The webhook's rules apply on the y-websocket handshake too.
    const http = collabUrl().replace(/^ws/, "http");
    const upgrade = {
      Upgrade: "websocket",
      Connection: "Upgrade",
      "Sec-WebSocket-Version": "13",
      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    };
    expect(
      (await fetch(`${http}/${docId}?token=${encodeURIComponent(owner?.key ?? "")}`, { headers: upgrade })).status,
    ).toBe(401);
    expect((await fetch(`${http}/${crypto.randomUUID()}?token=${ownerJwt()}`, { headers: upgrade })).status).toBe(404);
  });

  test("a PATCH of doc_ast reaches the people editing, and their edits reach GET", async () => {
    const docId = await createDoc("Live");
    const a = hocuspocusClient(collabUrl(), docId, ownerJwt());
    cleanups.push(a.destroy);
    await a.synced();
    addParagraph(a.doc, "typed live");
    const res = await call(owner, "PATCH", `/v1/editor/documents/${docId}`, {
      doc_ast: {
        type: "doc",
        content: [
          { type: "paragraph", content: [{ type: "text", text: "typed live" }] },
          { type: "paragraph", content: [{ type: "text", text: "added by an agent" }] },
        ],
      },
    });
    expect(res.status).toBe(200);
    await waitFor("the agent's paragraph in the live document", () => docXml(a.doc).includes("added by an agent"));
    expect(docXml(a.doc)).toContain("typed live");
  });

  test("a restart on the same data directory brings every document back exactly", async () => {
    const d1 = await createDoc("Survives");
    const d2 = await createDoc("Survives too");
    const a = hocuspocusClient(collabUrl(), d1, ownerJwt());
    const b = yWebsocketClient(collabUrl(), d2, ownerJwt());
    const watcher = hocuspocusClient(collabUrl(), d2, reader.jwt);
    cleanups.push(a.destroy, b.destroy, watcher.destroy);
    await a.synced();
    await b.synced();
    await watcher.synced();
    addParagraph(a.doc, "one");
    addParagraph(a.doc, "two");
    addParagraph(b.doc, "three");
    a.doc.getText("notes").insert(0, "a side field");
    // The server has everything: Hocuspocus acknowledged, and another client sees b's edit.
    await waitFor(
      "edits reached the server",
      () => !a.provider.hasUnsyncedChanges && docXml(watcher.doc) === docXml(b.doc),
    );
    const before1 = Y.encodeStateVector(a.doc);
    const before2 = Y.encodeStateVector(b.doc);
    const text1 = docXml(a.doc);
    const text2 = docXml(b.doc);
    await stop();

    await start();
    const a2 = hocuspocusClient(collabUrl(), d1, ownerJwt());
    const b2 = hocuspocusClient(collabUrl(), d2, ownerJwt());
    cleanups.push(a2.destroy, b2.destroy);
    await a2.synced();
    await b2.synced();
    expect(docXml(a2.doc)).toBe(text1);
    expect(docXml(b2.doc)).toBe(text2);
    expect(a2.doc.getText("notes").toString()).toBe("a side field");
    expect(Y.encodeStateVector(a2.doc)).toEqual(before1);
    expect(Y.encodeStateVector(b2.doc)).toEqual(before2);
    const got = await call(owner, "GET", `/v1/editor/documents/${d1}`);
    expect(JSON.stringify(((await got.json()) as { doc_ast: unknown }).doc_ast)).toContain("two");
  });

  test("deactivating the tenant closes its editor sockets with 4403", async () => {
    const docId = await createDoc("Closing");
    const a = hocuspocusClient(collabUrl(), docId, ownerJwt());
    const b = yWebsocketClient(collabUrl(), docId, ownerJwt());
    cleanups.push(a.destroy, b.destroy);
    await a.synced();
    await b.synced();
    const closes: number[] = [];
    a.provider.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
    b.provider.on("connection-close", (event: { code: number } | null) => closes.push(event?.code ?? 0));
    const { store } = svc.service;
    const { tenantResolver: tenants } = svc.service.deps;
    await store.updateTenant(svc.tenantId, { provisioning_state: "deprovisioned", is_active: false });
    await tenants.invalidate(svc.tenantId);
    await waitFor("both sockets closed", () => closes.filter((c) => c === 4403).length >= 2);
  });
});
