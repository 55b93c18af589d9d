import { describe, expect, test } from "bun:test";
import * as Y from "yjs";
import { applyDocAst, docAstOf, parseDocAst } from "../../../domain/editor/index.ts";
import {
  call,
  collabSecret,
  create,
  docOf,
  headers,
  putYjs,
  sharedDoc,
  storedState,
  svc,
  useEditorService,
  who,
} from "../../../test/fixtures/editor-app.ts";

useEditorService();

describe("PUT /v1/editor/documents/{doc_id}/yjs (collaboration server)", () => {
  test("needs the collab secret; stores the state and derives doc_ast; unchanged states write nothing", async () => {
    const doc = await sharedDoc(["one"]);
    const client = new Y.Doc();
    Y.applyUpdate(client, await storedState(doc.doc_id));
    const parsed = parseDocAst(docOf("one", "two"));
    if (!parsed.ok) throw new Error("bad");
    client.transact(() => applyDocAst(client, parsed.node));
    const state = Y.encodeStateAsUpdate(client);

    expect((await putYjs(doc.doc_id, state, null)).status).toBe(401);
    expect((await putYjs(doc.doc_id, state, "wrong")).status).toBe(401);
    // A user's credentials are not the collaboration server's.
    const asUser = await svc.request(`/v1/editor/documents/${doc.doc_id}/yjs`, {
      method: "PUT",
      headers: headers(who.owner!, true),
      body: JSON.stringify({ yjs_state: Buffer.from(state).toString("base64") }),
    });
    expect(asUser.status).toBe(401);

    const ok = await putYjs(doc.doc_id, state);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ doc_id: doc.doc_id, version: 2, changed: true });
    const again = await putYjs(doc.doc_id, state);
    expect(await again.json()).toEqual({ doc_id: doc.doc_id, version: 2, changed: false });
    const got = (await (await call("GET", `/v1/editor/documents/${doc.doc_id}`, who.owner!)).json()) as Record<
      string,
      unknown
    >;
    expect(got).toMatchObject({
      doc_ast: docOf("one", "two"),
      updated_by_type: "collab",
      updated_by_id: "room-1",
      version: 2,
    });
  });

  test("bad state is 422; unknown document 404", async () => {
    const doc = await sharedDoc(["one"]);
    const garbage = await putYjs(doc.doc_id, new Uint8Array([255, 255, 255, 1, 2, 3]));
    expect(garbage.status).toBe(422);
    expect(((await garbage.json()) as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual(["body", "yjs_state"]);
    const notB64 = await svc.request(`/v1/editor/documents/${doc.doc_id}/yjs`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-collab-secret": collabSecret },
      body: JSON.stringify({ yjs_state: "@@not base64@@" }),
    });
    expect(notB64.status).toBe(422);
    expect((await putYjs(crypto.randomUUID(), Y.encodeStateAsUpdate(new Y.Doc()))).status).toBe(404);
  });
});

describe("GET /v1/editor/documents/{doc_id}/yjs (collaboration server)", () => {
  const getYjs = (docId: string, h: Record<string, string>) =>
    svc.request(`/v1/editor/documents/${docId}/yjs`, { headers: h });

  test("needs the collab secret; answers exactly the stored state, null before the first edit", async () => {
    const doc = await sharedDoc(["loaded", "by the room"]);
    expect((await getYjs(doc.doc_id, {})).status).toBe(401);
    const wrong = await getYjs(doc.doc_id, { "x-collab-secret": `${collabSecret}x` });
    expect(wrong.status).toBe(401);
    // Neither the owner's API key + JWT nor a JWT alone opens the internal endpoint.
    expect((await getYjs(doc.doc_id, headers(who.owner!))).status).toBe(401);
    expect((await getYjs(doc.doc_id, { authorization: `Bearer ${who.owner!.jwt}` })).status).toBe(401);

    const ok = await getYjs(doc.doc_id, { "x-collab-secret": collabSecret });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { yjs_state: string };
    const bytes: Uint8Array = new Uint8Array(Buffer.from(body.yjs_state, "base64"));
    expect(bytes).toEqual(await storedState(doc.doc_id));
    const back = new Y.Doc();
    Y.applyUpdate(back, bytes);
    expect(docAstOf(back)).toEqual(docOf("loaded", "by the room"));

    // After a store the load answers the merged state.
    const parsed = parseDocAst(docOf("loaded", "by the room", "then stored"));
    if (!parsed.ok) throw new Error("bad");
    back.transact(() => applyDocAst(back, parsed.node));
    expect((await putYjs(doc.doc_id, Y.encodeStateAsUpdate(back))).status).toBe(200);
    const after = (await (await getYjs(doc.doc_id, { "x-collab-secret": collabSecret })).json()) as {
      yjs_state: string;
    };
    const reloaded = new Y.Doc();
    Y.applyUpdate(reloaded, new Uint8Array(Buffer.from(after.yjs_state, "base64")));
    expect(docAstOf(reloaded)).toEqual(docOf("loaded", "by the room", "then stored"));

    // Created without doc_ast: nothing stored yet.
    const blank = await create(who.owner!, { title: "Blank" });
    const empty = await getYjs(blank.doc_id, { "x-collab-secret": collabSecret });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({ yjs_state: null });
  });

  test("unknown document 404 (with the secret), not a UUID 422", async () => {
    const unknown = await getYjs(crypto.randomUUID(), { "x-collab-secret": collabSecret });
    expect(unknown.status).toBe(404);
    expect(typeof ((await unknown.json()) as { detail: unknown }).detail).toBe("string");
    expect((await getYjs(crypto.randomUUID(), {})).status).toBe(401);
    expect((await getYjs("not-a-uuid", { "x-collab-secret": collabSecret })).status).toBe(422);
  });
});
