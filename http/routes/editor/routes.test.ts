import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as Y from "yjs";
import {
  applyDocAst,
  type DocAst,
  docAstOf,
  docAstOfState,
  type LiveRooms,
  parseDocAst,
  type UpdatedBy,
  YDOC_FIELD,
} from "../../../domain/editor/index.ts";
import { ensureUser, issueApiKey } from "../../../pipelines/demo-seed.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { signUserToken } from "../../auth/jwt.ts";

let svc: TestService;
type Creds = { key: string; jwt: string; id: number };
const who: Record<string, Creds> = {};
let otherTenant: Creds;
let collabSecret: string;

const para = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] });
const docOf = (...texts: string[]) => ({ type: "doc", content: texts.map(para) });

const headers = (c: Partial<Creds>, json = false): Record<string, string> => ({
  ...(c.key ? { "x-api-key": c.key } : {}),
  ...(c.jwt ? { authorization: `Bearer ${c.jwt}` } : {}),
  ...(json ? { "content-type": "application/json" } : {}),
});
const call = (method: string, path: string, c: Partial<Creds>, body?: unknown) =>
  svc.request(path, {
    method,
    headers: headers(c, body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const create = async (c: Creds, body: unknown) => {
  const res = await call("POST", "/v1/editor/documents", c, body);
  expect(res.status).toBe(201);
  return (await res.json()) as { doc_id: string; doc_ast: DocAst; version: number };
};
const putYjs = (docId: string, state: Uint8Array, secret: string | null = collabSecret) =>
  svc.request(`/v1/editor/documents/${docId}/yjs`, {
    method: "PUT",
    headers: { "content-type": "application/json", ...(secret === null ? {} : { "x-collab-secret": secret }) },
    body: JSON.stringify({
      yjs_state: Buffer.from(state).toString("base64"),
      updated_by_type: "collab",
      updated_by_id: "room-1",
    }),
  });
const webhook = (token: string, documentName: string) =>
  svc.request("/v1/editor/hocuspocus/auth", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token, documentName, requestParameters: {} }),
  });
const storedState = async (docId: string) => (await svc.service.deps.editor.loadState(docId)) as Uint8Array;

beforeAll(async () => {
  svc = await startTestService();
  collabSecret = svc.service.deps.secrets.collabSecret;
  const tag = crypto.randomUUID().slice(0, 6);
  // name -> tenant roles
  const people: [string, string[]][] = [
    ["owner", ["editor"]],
    ["editor", ["editor"]],
    ["viewer", ["editor"]],
    ["outsider", ["editor"]],
    ["readonly", ["viewer"]],
  ];
  for (const [name, roles] of people) {
    const email = `${name}-${tag}@ed.test`;
    const u = await svc.user(email, "enterprise", roles);
    who[name] = { key: await svc.apiKey(email), jwt: await svc.token(email), id: u.id };
  }
  const { store, secrets, config } = svc.service.deps;
  const other = await store.createTenant({
    slug: `ed-${tag}`,
    display_name: "Other",
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  const u = await ensureUser(store, other.tenant_id, `other-${tag}@ed.test`, "enterprise", undefined, ["owner"]);
  otherTenant = {
    id: u.id,
    key: (await issueApiKey(store, u, "t")) as string,
    jwt: await signUserToken(
      { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
      { userId: u.id, email: u.email, tenantId: u.tenant_id },
    ),
  };
});
afterAll(() => svc.close());

/** A document owned by `owner`, with `editor` and `viewer` members and `readonly` as an editor member. */
async function sharedDoc(texts = ["Alpha", "Beta", "Gamma"]) {
  const doc = await create(who.owner!, { title: "Deal memo", doc_ast: docOf(...texts) });
  for (const [name, role] of [
    ["editor", "editor"],
    ["viewer", "viewer"],
    ["readonly", "editor"],
  ] as const) {
    const res = await call("PUT", `/v1/editor/documents/${doc.doc_id}/members/${who[name]!.id}`, who.owner!, { role });
    expect(res.status).toBe(200);
  }
  return doc;
}

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

describe("POST /v1/editor/hocuspocus/auth", () => {
  test("read_only per role; bad token 401; no role 403; other tenant and unknown rooms 404", async () => {
    const doc = await sharedDoc();
    const ask = async (token: string, name = doc.doc_id) => {
      const res = await webhook(token, name);
      return res.status === 200 ? ((await res.json()) as { read_only: boolean; role: string }) : res.status;
    };
    expect(await ask(who.owner!.jwt)).toMatchObject({ read_only: false, role: "owner" });
    expect(await ask(`Bearer ${who.editor!.jwt}`)).toMatchObject({ read_only: false, role: "editor" });
    expect(await ask(who.viewer!.jwt)).toMatchObject({ read_only: true, role: "viewer" });
    expect(await ask(who.readonly!.jwt)).toMatchObject({ read_only: true, role: "viewer" });
    expect(await ask(who.outsider!.jwt)).toBe(403);
    expect(await ask(otherTenant.jwt)).toBe(404);
    expect(await ask(who.owner!.jwt, crypto.randomUUID())).toBe(404);
    expect(await ask(who.owner!.jwt, "not-a-room")).toBe(404);
    expect(await ask(`${who.owner!.jwt}x`)).toBe(401);
    // The API key is not a connection token (spec 5 rule 1).
    expect(await ask(who.owner!.key)).toBe(401);
    const full = (await (await webhook(who.viewer!.jwt, doc.doc_id.toUpperCase())).json()) as Record<string, unknown>;
    expect(full).toMatchObject({ doc_id: doc.doc_id, user: { id: who.viewer!.id } });
    const invalid = await svc.request("/v1/editor/hocuspocus/auth", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ documentName: doc.doc_id }),
    });
    expect(invalid.status).toBe(422);
  });

  test("the in-process CollabAuthorizer applies the same rules", async () => {
    const doc = await sharedDoc();
    const { authorizer } = svc.service.deps.editor;
    expect(await authorizer.authorize(who.viewer!.jwt, doc.doc_id)).toMatchObject({ readOnly: true, role: "viewer" });
    expect(await authorizer.authorize(who.editor!.jwt, doc.doc_id)).toMatchObject({
      readOnly: false,
      role: "editor",
      userId: who.editor!.id,
      tenantId: svc.tenantId,
    });
    await expect(authorizer.authorize(who.outsider!.jwt, doc.doc_id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(authorizer.authorize("junk", doc.doc_id)).rejects.toMatchObject({ code: "unauthenticated" });
  });
});
