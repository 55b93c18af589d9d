import { describe, expect, test } from "bun:test";
import {
  type Creds,
  call,
  create,
  otherTenant,
  sharedDoc,
  svc,
  useEditorService,
  who,
} from "../../../test/fixtures/editor-app.ts";

useEditorService();

describe("editor REST authentication (API key together with the JWT)", () => {
  test("key only, JWT only, nothing: 401; key and JWT of different tenants: 403", async () => {
    const doc = await sharedDoc();
    const path = `/v1/editor/documents/${doc.doc_id}`;
    expect((await call("GET", path, { key: who.owner!.key })).status).toBe(401);
    expect((await call("GET", path, { jwt: who.owner!.jwt })).status).toBe(401);
    expect((await call("GET", path, {})).status).toBe(401);
    const mixed = await call("GET", path, { key: who.owner!.key, jwt: otherTenant.jwt });
    expect(mixed.status).toBe(403);
    const mixed2 = await call("GET", path, { key: otherTenant.key, jwt: who.owner!.jwt });
    expect(mixed2.status).toBe(403);
  });
});

describe("roles (owner, member grants, tenant access, tenant role cap, other tenant)", () => {
  test("GET reports my_role per caller; no role is 403 in the tenant and 404 across tenants", async () => {
    const doc = await sharedDoc();
    const path = `/v1/editor/documents/${doc.doc_id}`;
    const roleOf = async (c: Creds) => {
      const res = await call("GET", path, c);
      return res.status === 200 ? ((await res.json()) as { my_role: string }).my_role : res.status;
    };
    expect(await roleOf(who.owner!)).toBe("owner");
    expect(await roleOf(who.editor!)).toBe("editor");
    expect(await roleOf(who.viewer!)).toBe("viewer");
    expect(await roleOf(who.readonly!)).toBe("viewer"); // an editor grant, capped by the tenant viewer role
    expect(await roleOf(who.outsider!)).toBe(403);
    expect(await roleOf(otherTenant)).toBe(404);
    expect((await call("GET", `/v1/editor/documents/${crypto.randomUUID()}`, who.owner!)).status).toBe(404);
  });

  test("the list shows each caller the documents they can open, with room names and my_role", async () => {
    const doc = await sharedDoc();
    const list = async (c: Creds) => {
      const res = await call("GET", "/v1/editor/documents?limit=200", c);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { documents: { doc_id: string; room_name: string; my_role: string }[] };
      return body.documents.find((d) => d.doc_id === doc.doc_id);
    };
    expect(await list(who.owner!)).toMatchObject({ room_name: doc.doc_id, my_role: "owner" });
    expect((await list(who.viewer!))?.my_role).toBe("viewer");
    expect(await list(who.outsider!)).toBeUndefined();
    expect(await list(otherTenant)).toBeUndefined();
  });

  test("list pages with a cursor", async () => {
    for (let i = 0; i < 3; i++) await create(who.outsider!, { title: `page ${i}` });
    const first = await call("GET", "/v1/editor/documents?limit=2", who.outsider!);
    const a = (await first.json()) as { documents: { doc_id: string }[]; next_cursor: string };
    expect(a.documents).toHaveLength(2);
    const second = await call("GET", `/v1/editor/documents?limit=2&cursor=${a.next_cursor}`, who.outsider!);
    const b = (await second.json()) as { documents: { doc_id: string }[]; next_cursor: string | null };
    expect(b.documents.length).toBeGreaterThanOrEqual(1);
    expect(b.documents.map((d) => d.doc_id)).not.toContain(a.documents[0]!.doc_id);
    const bad = await call("GET", "/v1/editor/documents?cursor=nonsense", who.outsider!);
    expect(bad.status).toBe(422);
  });

  test("sharing: owners grant, revoke and open to the tenant; others cannot", async () => {
    const doc = await sharedDoc();
    const base = `/v1/editor/documents/${doc.doc_id}`;
    expect((await call("PUT", `${base}/members/${who.outsider!.id}`, who.editor!, { role: "viewer" })).status).toBe(
      403,
    );
    expect((await call("PUT", `${base}/members/${otherTenant.id}`, who.owner!, { role: "viewer" })).status).toBe(404);
    expect((await call("PUT", `${base}/members/${who.owner!.id}`, who.owner!, { role: "viewer" })).status).toBe(409);
    expect((await call("PUT", `${base}/members/${who.outsider!.id}`, who.owner!, { role: "viewer" })).status).toBe(200);
    expect(((await (await call("GET", base, who.outsider!)).json()) as { my_role: string }).my_role).toBe("viewer");
    const members = (await (await call("GET", `${base}/members`, who.viewer!)).json()) as {
      members: { user_id: number; role: string }[];
    };
    expect(members.members.map((m) => [m.user_id, m.role])).toContainEqual([who.outsider!.id, "viewer"]);
    expect((await call("DELETE", `${base}/members/${who.outsider!.id}`, who.owner!)).status).toBe(204);
    expect((await call("GET", base, who.outsider!)).status).toBe(403);
    expect((await call("PUT", `${base}/access`, who.editor!, { general_access: "editor" })).status).toBe(403);
    expect((await call("PUT", `${base}/access`, who.owner!, { general_access: "editor" })).status).toBe(200);
    expect(((await (await call("GET", base, who.outsider!)).json()) as { my_role: string }).my_role).toBe("editor");
  });

  test("creating needs the tenant's editor or owner role; the creator owns the document", async () => {
    expect((await call("POST", "/v1/editor/documents", who.readonly!, { title: "x" })).status).toBe(403);
    const doc = await create(who.editor!, { title: "Empty" });
    expect(doc).toMatchObject({
      my_role: "owner",
      version: 1,
      doc_ast: { type: "doc", content: [{ type: "paragraph" }] },
    });
    expect(await svc.service.deps.editor.loadState(doc.doc_id)).toBeNull();
  });
});
