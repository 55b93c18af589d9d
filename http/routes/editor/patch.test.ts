import { describe, expect, test } from "bun:test";
import * as Y from "yjs";
import {
  type DocAst,
  docAstOf,
  docAstOfState,
  type LiveRooms,
  type UpdatedBy,
  YDOC_FIELD,
} from "../../../domain/editor/index.ts";
import {
  call,
  docOf,
  otherTenant,
  para,
  putYjs,
  sharedDoc,
  storedState,
  svc,
  useEditorService,
  who,
} from "../../../test/fixtures/editor-app.ts";

useEditorService();

describe("PATCH doc_ast", () => {
  test("viewers and the tenant-capped are refused; editors store; GET and the Y.Doc state give the same doc_ast", async () => {
    const doc = await sharedDoc();
    const path = `/v1/editor/documents/${doc.doc_id}`;
    const next = {
      type: "doc",
      content: [
        { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Summary" }] },
        {
          type: "paragraph",
          content: [
            { type: "text", text: "Revenue ", marks: [{ type: "bold" }] },
            { type: "text", text: "grew" },
          ],
        },
        { type: "bulletList", content: [{ type: "listItem", content: [para("one")] }] },
      ],
    };
    expect((await call("PATCH", path, who.viewer!, { doc_ast: next })).status).toBe(403);
    expect((await call("PATCH", path, who.readonly!, { doc_ast: next })).status).toBe(403);
    expect((await call("PATCH", path, who.outsider!, { doc_ast: next })).status).toBe(403);
    expect((await call("PATCH", path, otherTenant, { doc_ast: next })).status).toBe(404);

    const res = await call("PATCH", path, who.editor!, {
      doc_ast: next,
      updated_by_type: "agent",
      updated_by_id: "analyst-bot",
    });
    expect(res.status).toBe(200);
    const patched = (await res.json()) as {
      doc_ast: DocAst;
      version: number;
      updated_by_type: string;
      updated_by_id: string;
      my_role: string;
    };
    expect(patched.doc_ast).toEqual(next);
    expect(patched).toMatchObject({
      version: 2,
      updated_by_type: "agent",
      updated_by_id: "analyst-bot",
      my_role: "editor",
    });
    const got = (await (await call("GET", path, who.viewer!)).json()) as { doc_ast: DocAst };
    expect(got.doc_ast).toEqual(next);
    expect(docAstOfState(await storedState(doc.doc_id))).toEqual(next);

    // Without updated_by_*: the calling user. The same doc_ast again changes nothing.
    const same = (await (await call("PATCH", path, who.owner!, { doc_ast: next })).json()) as { version: number };
    expect(same.version).toBe(2);
    const owned = (await (
      await call("PATCH", path, who.owner!, { doc_ast: docOf("x"), title: "Renamed" })
    ).json()) as Record<string, unknown>;
    expect(owned).toMatchObject({
      version: 3,
      title: "Renamed",
      updated_by_type: "user",
      updated_by_id: String(who.owner!.id),
    });
  });

  test("doc_ast that is not a StarterKit tree gets the section 7 validation body", async () => {
    const doc = await sharedDoc();
    const path = `/v1/editor/documents/${doc.doc_id}`;
    const bad = await call("PATCH", path, who.editor!, { doc_ast: { type: "doc", content: [{ type: "table" }] } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      detail: [
        {
          loc: ["body", "doc_ast", "content", "0", "type"],
          msg: "Unknown node type 'table'",
          type: "enum",
          input: "table",
          ctx: { expected: expect.any(Array) },
        },
      ],
    });
    const missing = (await (await call("PATCH", path, who.editor!, {})).json()) as {
      detail: { loc: string[]; type: string }[];
    };
    expect(missing.detail[0]).toMatchObject({ loc: ["body", "doc_ast"], type: "missing" });
    const extra = (await (
      await call("PATCH", path, who.editor!, { doc_ast: docOf("x"), yjs_state: "AA==" })
    ).json()) as {
      detail: { loc: string[]; type: string }[];
    };
    expect(extra.detail[0]).toMatchObject({ loc: ["body", "yjs_state"], type: "extra_forbidden" });
    const badId = await call("PATCH", "/v1/editor/documents/not-a-uuid", who.editor!, { doc_ast: docOf("x") });
    expect(badId.status).toBe(422);
    expect(((await badId.json()) as { detail: { type: string }[] }).detail[0]?.type).toBe("uuid_parsing");
    // Nothing was stored by the refused requests.
    expect(((await (await call("GET", path, who.editor!)).json()) as { version: number }).version).toBe(1);
  });

  test("a PATCH while another writer holds a stale copy of the Y.Doc: that writer's later store keeps both edits", async () => {
    const doc = await sharedDoc();
    const client = new Y.Doc();
    Y.applyUpdate(client, await storedState(doc.doc_id));
    // The copy's holder (say, a room on an instance that missed the PATCH) edits "Gamma".
    ((client.getXmlFragment(YDOC_FIELD).get(2) as Y.XmlElement).get(0) as Y.XmlText).insert(5, "!");
    const res = await call("PATCH", `/v1/editor/documents/${doc.doc_id}`, who.editor!, {
      doc_ast: docOf("Alpha", "Beta two", "Gamma"),
    });
    expect(res.status).toBe(200);
    // It persists its full state, which lacks the PATCH, afterwards.
    const put = await putYjs(doc.doc_id, Y.encodeStateAsUpdate(client));
    expect(put.status).toBe(200);
    const got = (await (await call("GET", `/v1/editor/documents/${doc.doc_id}`, who.owner!)).json()) as {
      doc_ast: DocAst;
    };
    expect(got.doc_ast).toEqual(docOf("Alpha", "Beta two", "Gamma!"));
  });

  test("a PATCH through a live room reaches a connected client in one update and merges with its concurrent edit", async () => {
    const editor = svc.service.deps.editor;
    const doc = await sharedDoc();
    // A minimal live room over the real persistence: one server Y.Doc, one connected client.
    const server = new Y.Doc();
    Y.applyUpdate(server, await storedState(doc.doc_id));
    const client = new Y.Doc();
    Y.applyUpdate(client, Y.encodeStateAsUpdate(server));
    const toClient: Uint8Array[] = [];
    server.on("update", (u: Uint8Array, origin: unknown) => {
      if (origin !== "client") toClient.push(u);
    });
    const room: LiveRooms = {
      withDoc: async (docId: string, origin: unknown, fn: (d: Y.Doc) => void, by?: UpdatedBy) => {
        expect(docId).toBe(doc.doc_id);
        server.transact(() => fn(server), origin);
        await editor.persistence.store(
          docId,
          Y.encodeStateAsUpdate(server),
          by ?? { updated_by_type: "x", updated_by_id: "x" },
        );
      },
    };
    const previous = editor.liveRooms;
    editor.useLiveRooms(room);
    try {
      // The client types in "Beta" at the same time; its update is still in flight.
      const beta = (client.getXmlFragment(YDOC_FIELD).get(1) as Y.XmlElement).get(0) as Y.XmlText;
      const inFlight: Uint8Array[] = [];
      client.on("update", (u: Uint8Array) => inFlight.push(u));
      beta.insert(0, "X");
      const res = await call("PATCH", `/v1/editor/documents/${doc.doc_id}`, who.editor!, {
        doc_ast: docOf("Alpha", "Beta two", "Gamma"),
      });
      expect(res.status).toBe(200);
      expect(toClient).toHaveLength(1);
      for (const u of toClient) Y.applyUpdate(client, u, "server");
      for (const u of inFlight) Y.applyUpdate(server, u, "client");
      expect(docAstOf(client)).toEqual(docOf("Alpha", "XBeta two", "Gamma"));
      expect(docAstOf(server)).toEqual(docOf("Alpha", "XBeta two", "Gamma"));
      await editor.persistence.store(doc.doc_id, Y.encodeStateAsUpdate(server), {
        updated_by_type: "collab",
        updated_by_id: "room",
      });
      const got = (await (await call("GET", `/v1/editor/documents/${doc.doc_id}`, who.viewer!)).json()) as {
        doc_ast: DocAst;
      };
      expect(got.doc_ast).toEqual(docOf("Alpha", "XBeta two", "Gamma"));
    } finally {
      editor.useLiveRooms(previous);
    }
  });
});
