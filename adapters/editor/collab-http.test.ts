/**
 * The HTTP ports against the real API over real HTTP: the internal GET and PUT .../yjs with
 * the shared secret, and the auth webhook.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as Y from "yjs";
import { YDOC_FIELD } from "../../domain/editor/index.ts";
import { AppError } from "../../domain/errors.ts";
import { startTestService, type TestService } from "../../test/harness.ts";
import { type Served, serve } from "../../test/serve.ts";
import { HttpCollabAuthorizer, HttpCollabPersistence } from "./collab.ts";

let svc: TestService;
let served: Served;
let jwt: string;
let key: string;
let docId: string;

beforeAll(async () => {
  svc = await startTestService();
  served = serve(svc.service);
  const u = await svc.user("http-collab@test.local", "enterprise", ["editor"]);
  key = await svc.apiKey(u.email);
  jwt = await svc.token(u.email);
  const res = await svc.request("/v1/editor/documents", {
    method: "POST",
    headers: { "x-api-key": key, authorization: `Bearer ${jwt}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Over HTTP" }),
  });
  expect(res.status).toBe(201);
  docId = ((await res.json()) as { doc_id: string }).doc_id;
});
afterAll(async () => {
  await served.stop();
  await svc.close();
});

describe("collaboration ports over HTTP", () => {
  test("store sends the state with the shared secret; the API keeps it and records the writer", async () => {
    const persistence = new HttpCollabPersistence({
      baseUrl: served.url,
      secret: svc.service.secrets.collabSecret,
    });
    const doc = new Y.Doc();
    const p = new Y.XmlElement("paragraph");
    p.insert(0, [new Y.XmlText("stored over HTTP")]);
    doc.getXmlFragment(YDOC_FIELD).insert(0, [p]);
    await persistence.store(docId, Y.encodeStateAsUpdate(doc), { updated_by_type: "user", updated_by_id: "42" });
    const state = await svc.service.deps.editor.loadState(docId);
    const back = new Y.Doc();
    Y.applyUpdate(back, state as Uint8Array);
    expect(back.getXmlFragment(YDOC_FIELD).toString()).toContain("stored over HTTP");
    const got = await svc.request(`/v1/editor/documents/${docId}`, {
      headers: { "x-api-key": key, authorization: `Bearer ${jwt}` },
    });
    expect(await got.json()).toMatchObject({ updated_by_type: "user", updated_by_id: "42" });

    const wrong = new HttpCollabPersistence({ baseUrl: served.url, secret: "not-the-secret-at-all" });
    const err = await wrong
      .store(docId, Y.encodeStateAsUpdate(doc), { updated_by_type: "user", updated_by_id: "1" })
      .catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("unauthenticated");
  });

  test("load answers the stored state, null for a never-edited document; refusals keep their code", async () => {
    const secret = svc.service.secrets.collabSecret;
    const persistence = new HttpCollabPersistence({ baseUrl: served.url, secret });
    const doc = new Y.Doc();
    const p = new Y.XmlElement("paragraph");
    p.insert(0, [new Y.XmlText("loaded over HTTP")]);
    doc.getXmlFragment(YDOC_FIELD).insert(0, [p]);
    await persistence.store(docId, Y.encodeStateAsUpdate(doc), { updated_by_type: "user", updated_by_id: "7" });
    const loaded = await persistence.load(docId);
    expect(loaded).toEqual(await svc.service.deps.editor.loadState(docId));
    const back = new Y.Doc();
    Y.applyUpdate(back, loaded as Uint8Array);
    expect(back.getXmlFragment(YDOC_FIELD).toString()).toContain("loaded over HTTP");

    const blank = await svc.request("/v1/editor/documents", {
      method: "POST",
      headers: { "x-api-key": key, authorization: `Bearer ${jwt}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Never edited" }),
    });
    expect(await persistence.load(((await blank.json()) as { doc_id: string }).doc_id)).toBeNull();

    const unknown = await persistence.load(crypto.randomUUID()).catch((e) => e);
    expect((unknown as AppError).code).toBe("not_found");
    const wrong = new HttpCollabPersistence({ baseUrl: served.url, secret: "not-the-secret-at-all" });
    const refused = await wrong.load(docId).catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("unauthenticated");
  });

  test("authorize goes through the webhook: owner read-write, API key and unknown document refused", async () => {
    const auth = new HttpCollabAuthorizer({ baseUrl: served.url, secret: svc.service.secrets.collabSecret });
    const grant = await auth.authorize(jwt, docId);
    expect(grant).toMatchObject({ readOnly: false, role: "owner", tenantId: svc.tenantId });
    const byKey = await auth.authorize(key, docId).catch((e) => e);
    expect((byKey as AppError).code).toBe("unauthenticated");
    const unknown = await auth.authorize(jwt, crypto.randomUUID()).catch((e) => e);
    expect((unknown as AppError).code).toBe("not_found");
  });
});
