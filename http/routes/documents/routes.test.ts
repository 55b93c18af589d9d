/**
 * Upload and search through the HTTP path with the real parts: busboy streaming, the
 * extraction workers, the ONNX embedder, the SQLite FTS5 + sqlite-vec index. Every file of
 * ../shared/data/documents uploads and is then found by a phrase from it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_UPLOAD_BYTES } from "../../../domain/documents/types.ts";
import { installedModelsDir } from "../../../test/embedding-models.ts";
import { type Caller, type DocsFixture, startDocsFixture, textFile } from "../../../test/fixtures/documents-app.ts";
import { sharedData } from "../../../test/shared-data.ts";

const docsDir = sharedData("documents", "document upload");
const models = installedModelsDir(["bge-small-en-v1.5", "e5-small-v2"], "document upload");

let fx: DocsFixture;
let alice: Caller;

beforeAll(async () => {
  fx = await startDocsFixture();
  alice = await fx.caller(`alice-${crypto.randomUUID()}@example.com`, ["analyst"]);
});
afterAll(() => fx.svc.close());

interface Hit {
  doc_id: string;
  chunk_id: string;
  text: string;
  filename: string;
  score: number;
}
const results = async (res: Response): Promise<Hit[]> => {
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Hit[] }).results;
};

describe.skipIf(!docsDir || !models)("every shared document uploads and is found by search", () => {
  const files = docsDir
    ? readdirSync(docsDir).flatMap((sub) => readdirSync(join(docsDir, sub)).map((f) => join(docsDir, sub, f)))
    : [];

  test.each(files.map((f) => [f.slice((docsDir ?? "").length + 1), f]))(
    "%s",
    async (_name, path) => {
      const name = path.split("/").pop() as string;
      const res = await fx.upload(alice, new File([readFileSync(path)], name), { doc_type: "research_note" });
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(
        [
          "chunks",
          "doc_id",
          "doc_type",
          "entity_id",
          "filename",
          "index_name",
          "status",
          "tenant_id",
          "visibility",
        ].sort(),
      );
      expect(body).toMatchObject({
        filename: name,
        tenant_id: fx.svc.tenantId,
        index_name: `client-docs-${fx.svc.tenantId}`,
        doc_type: "research_note",
        visibility: "tenant_wide",
        status: "indexed",
      });
      expect(body.chunks as number).toBeGreaterThan(0);
      const docId = body.doc_id as string;

      // A phrase of the indexed text (one of the document's own chunks, fetched by doc_id)...
      const own = await results(
        await fx.search(alice, { query: "summary overview", doc_id: docId, k: 3, mode: "dense" }),
      );
      expect(own.length).toBeGreaterThan(0);
      expect(own.every((h) => h.doc_id === docId)).toBe(true);
      const tokens = (own[0]?.text ?? "").split(/\s+/);
      const long = tokens.filter((w) => /[\p{L}\p{N}]{3,}/u.test(w));
      // csv_with_escaped_commas.csv is nothing but "A": fall back to whatever words there are.
      const words = long.length > 0 ? long : tokens.filter((w) => /[\p{L}\p{N}]/u.test(w));
      const mid = Math.max(0, Math.floor(words.length / 2) - 4);
      const phrase = words.slice(mid, mid + 8).join(" ");
      expect(phrase.length).toBeGreaterThan(0);
      // ...finds the document among everything uploaded, with no doc_id filter.
      const found = await results(await fx.search(alice, { query: phrase, k: 10 }));
      expect(found.map((h) => h.doc_id)).toContain(docId);
    },
    180_000,
  );

  test("a phrase read straight from a text file finds it (no help from the index)", async () => {
    const path = join(docsDir as string, "txt", "war_and_peace_1p.txt");
    const text = readFileSync(path, "utf8");
    const line = text.split("\n").find((l) => l.trim().split(/\s+/).length > 12) as string;
    const phrase = line.trim().split(/\s+/).slice(2, 10).join(" ");
    const found = await results(await fx.search(alice, { query: phrase, k: 5, mode: "bm25" }));
    expect(found[0]?.filename).toBe("war_and_peace_1p.txt");
    expect(found[0]?.text).toContain(phrase.split(" ")[3] as string);
  });
});

describe.skipIf(!models)("access control through the HTTP path", () => {
  const token = `zqx${crypto.randomUUID().slice(0, 8)}`;
  let barrier: string;
  let bob: Caller;
  let carol: Caller;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    bob = await fx.caller(`bob-${crypto.randomUUID()}@example.com`, ["viewer"]);
    carol = await fx.caller(`carol-${crypto.randomUUID()}@example.com`, ["viewer"]);
    barrier = await fx.createBarrier(`wall-${token}`);
    await fx.cross(carol, barrier);
    const put = async (label: string, fields: Record<string, string>) => {
      const res = await fx.upload(
        alice,
        textFile(`${label}.txt`, `${token} ${label} memorandum about the ${label} deal.`),
        fields,
      );
      expect(res.status).toBe(200);
      ids[label] = ((await res.json()) as { doc_id: string }).doc_id;
    };
    await put("wide", {});
    await put("private", { visibility: "deal_private", allowed_identity_ids: `${alice.user.id}, ${carol.user.id}` });
    await put("team", { visibility: "team_only", allowed_roles: "analyst" });
    await put("walled", { barrier_id: barrier });
  });

  // bm25: only documents containing the token (the dense leg would add the nearest others).
  const seen = async (who: Caller) =>
    new Set((await results(await fx.search(who, { query: token, k: 50, mode: "bm25" }))).map((h) => h.doc_id));

  test("each caller sees exactly what the rules allow", async () => {
    expect(await seen(alice)).toEqual(new Set([ids.wide, ids.private, ids.team] as string[]));
    expect(await seen(bob)).toEqual(new Set([ids.wide] as string[]));
    expect(await seen(carol)).toEqual(new Set([ids.wide, ids.private, ids.walled] as string[]));
  });

  test("filters in the body cannot widen access; a doc_id the caller cannot see gives nothing", async () => {
    const res = await fx.search(bob, { query: token, doc_id: ids.private, k: 5 });
    expect(await results(res)).toEqual([]);
    const sneaky = await fx.search(bob, { query: token, identity_id: String(alice.user.id), roles: ["analyst"] });
    expect(sneaky.status).toBe(422);
  });

  test("revoking a barrier crossing applies to the very next search", async () => {
    expect((await seen(carol)).has(ids.walled as string)).toBe(true);
    await fx.revoke(carol, barrier);
    expect((await seen(carol)).has(ids.walled as string)).toBe(false);
    await fx.cross(carol, barrier);
    expect((await seen(carol)).has(ids.walled as string)).toBe(true);
  });

  test("extractive RAG citations never name a document the caller cannot see", async () => {
    const res = await fx.answer(bob, { question: `What does ${token} say about the deal?`, k: 10 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { mode: string; citations: { doc_id: string }[]; answer: string };
    expect(body.mode).toBe("extractive");
    expect(body.citations.map((c) => c.doc_id)).toContain(ids.wide as string);
    const hidden = [ids.private, ids.team, ids.walled];
    expect(body.citations.filter((c) => hidden.includes(c.doc_id))).toEqual([]);
    for (const name of ["private.txt", "team.txt", "walled.txt"]) expect(body.answer).not.toContain(name);
  });

  test("GET /v1/documents/{doc_id} shows a document only to those who may see it", async () => {
    const get = (who: Caller, id: string) =>
      fx.svc.request(`/v1/documents/${id}`, { headers: { "x-api-key": who.key } });
    const mine = await get(alice, ids.private as string);
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({
      doc_id: ids.private,
      filename: "private.txt",
      format: "txt",
      chunks: 1,
      visibility: "deal_private",
      allowed_identity_ids: [String(alice.user.id), String(carol.user.id)],
      allowed_roles: [],
      barrier_id: null,
      uploaded_by: String(alice.user.id),
      status: "indexed",
    });
    const hidden = await get(bob, ids.private as string);
    expect(hidden.status).toBe(404);
    expect((await get(bob, crypto.randomUUID())).status).toBe(404);
    expect((await get(bob, "nope")).status).toBe(422);
  });

  test("DELETE: the uploader or a tenant owner; the document is gone from search at once", async () => {
    const res = await fx.upload(alice, textFile("doomed.txt", `${token} doomed draft`));
    const id = ((await res.json()) as { doc_id: string }).doc_id;
    const del = (who: Caller) =>
      fx.svc.request(`/v1/documents/${id}`, { method: "DELETE", headers: { "x-api-key": who.key } });
    expect((await del(bob)).status).toBe(403);
    const owner = await fx.caller(`owner-${crypto.randomUUID()}@example.com`, ["owner"]);
    expect((await del(owner)).status).toBe(204);
    expect((await seen(alice)).has(id)).toBe(false);
    expect((await del(alice)).status).toBe(404);
  });

  test("entity_id and doc_type scope a search", async () => {
    const res = await fx.upload(alice, textFile("scoped.txt", `${token} scoped board pack`), {
      entity_id: "deal-42",
      doc_type: "board_pack",
    });
    const doc = (await res.json()) as { doc_id: string; entity_id: string };
    expect(doc.entity_id).toBe("deal-42");
    const byEntity = await results(await fx.search(alice, { query: token, entity_id: "deal-42" }));
    expect(byEntity.map((h) => h.doc_id)).toEqual([doc.doc_id]);
    const byType = await results(await fx.search(alice, { query: token, doc_type: "board_pack" }));
    expect(byType.map((h) => h.doc_id)).toEqual([doc.doc_id]);
  });
});

describe("upload refusals", () => {
  const expectIssue = async (res: Response, loc: string[], type: string) => {
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: Record<string, unknown>[] };
    expect(body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    return body;
  };
  const note = () => textFile("note.txt", "A short note with some text.");

  test("invalid visibility and doc_type are 422 with the section 7 body", async () => {
    const body = await expectIssue(
      await fx.upload(alice, note(), { visibility: "public" }),
      ["body", "visibility"],
      "enum",
    );
    expect(body.detail[0]).toEqual({
      loc: ["body", "visibility"],
      msg: "Input should be 'tenant_wide', 'deal_private' or 'team_only'",
      type: "enum",
      input: "public",
      ctx: { expected: "'tenant_wide', 'deal_private' or 'team_only'" },
    });
    await expectIssue(await fx.upload(alice, note(), { doc_type: "memo" }), ["body", "doc_type"], "enum");
  });

  test("deal_private needs allowed_identity_ids; team_only needs allowed_roles", async () => {
    await expectIssue(
      await fx.upload(alice, note(), { visibility: "deal_private" }),
      ["body", "allowed_identity_ids"],
      "missing",
    );
    await expectIssue(
      await fx.upload(alice, note(), { visibility: "deal_private", allowed_identity_ids: " , " }),
      ["body", "allowed_identity_ids"],
      "missing",
    );
    await expectIssue(
      await fx.upload(alice, note(), { visibility: "team_only" }),
      ["body", "allowed_roles"],
      "missing",
    );
  });

  test("restriction lists with the wrong visibility, bad ids, bad UUIDs and unknown fields are 422", async () => {
    await expectIssue(
      await fx.upload(alice, note(), { allowed_roles: "analyst" }),
      ["body", "allowed_roles"],
      "value_error",
    );
    await expectIssue(
      await fx.upload(alice, note(), { visibility: "deal_private", allowed_identity_ids: "12,bob" }),
      ["body", "allowed_identity_ids"],
      "value_error",
    );
    await expectIssue(await fx.upload(alice, note(), { barrier_id: "wall-1" }), ["body", "barrier_id"], "uuid_parsing");
    await expectIssue(
      await fx.upload(alice, note(), { barrier_id: crypto.randomUUID() }),
      ["body", "barrier_id"],
      "value_error",
    );
    await expectIssue(await fx.upload(alice, note(), { tenant_id: "acme" }), ["body", "tenant_id"], "uuid_parsing");
    await expectIssue(await fx.upload(alice, note(), { owner: "me" }), ["body", "owner"], "extra_forbidden");
  });

  test("missing file and missing required fields are 422", async () => {
    const fd = new FormData();
    fd.append("tenant_id", fx.svc.tenantId);
    const res = await fx.svc.request("/v1/documents/upload", {
      method: "POST",
      headers: { "x-api-key": alice.key },
      body: fd,
    });
    const body = await expectIssue(res, ["body", "file"], "missing");
    expect(body.detail).toContainEqual(expect.objectContaining({ loc: ["body", "identity_id"], type: "missing" }));
  });

  test("an empty file and a file without text are 422", async () => {
    await expectIssue(await fx.upload(alice, textFile("empty.txt", "")), ["body", "file"], "empty_file");
    await expectIssue(
      await fx.upload(alice, textFile("blank.txt", " \n\n \t ")),
      ["body", "file"],
      "no_text_extracted",
    );
    const blankSvg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#fff"/></svg>';
    await expectIssue(
      await fx.upload(alice, new File([blankSvg], "blank.svg", { type: "image/svg+xml" })),
      ["body", "file"],
      "no_text_extracted",
    );
  });

  test("tenant_id or identity_id of someone else is 403", async () => {
    const other = await fx.caller(`other-${crypto.randomUUID()}@example.com`, ["viewer"]);
    const wrongIdentity = await fx.upload(alice, note(), { identity_id: String(other.user.id) });
    expect(wrongIdentity.status).toBe(403);
    expect(await wrongIdentity.json()).toEqual({ detail: "identity_id is not the identity of the API key" });
    const wrongTenant = await fx.upload(alice, note(), { tenant_id: crypto.randomUUID() });
    expect(wrongTenant.status).toBe(403);
  });

  test("no API key, a wrong key, or a bearer token instead is 401", async () => {
    const fd = new FormData();
    fd.append("file", note());
    const none = await fx.svc.request("/v1/documents/upload", { method: "POST", body: fd });
    expect(none.status).toBe(401);
    const wrong = await fx.svc.request("/v1/documents/search", {
      method: "POST",
      headers: { "x-api-key": "cairn_00000000_nope", "content-type": "application/json" },
      body: JSON.stringify({ query: "x" }),
    });
    expect(wrong.status).toBe(401);
    const token = await fx.svc.token(alice.user.email, "enterprise");
    const jwt = await fx.svc.request("/v1/documents/search", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "x" }),
    });
    expect(jwt.status).toBe(401);
  });

  test("a declared Content-Length above the limit is 413 before anything is read", async () => {
    const res = await fx.svc.request("/v1/documents/upload", {
      method: "POST",
      headers: {
        "x-api-key": alice.key,
        "content-type": "multipart/form-data; boundary=xyz",
        "content-length": String(MAX_UPLOAD_BYTES * 2),
      },
      body: "--xyz--\r\n",
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
  });

  test("a tenant whose index is not provisioned gets 503 for upload and search", async () => {
    const { store } = fx.svc.service;
    const t = await store.createTenant({
      slug: `noidx-${crypto.randomUUID().slice(0, 8)}`,
      display_name: "No index",
      tier: "enterprise",
      region: "local",
      provisioning_state: "active",
      is_active: true,
    });
    const { ensureUser, issueApiKey } = await import("../../../cli/demo-seed.ts");
    const user = await ensureUser(store, t.tenant_id, `eve-${crypto.randomUUID()}@example.com`, "enterprise");
    const key = (await issueApiKey(store, user, "t")) as string;
    const fd = new FormData();
    fd.append("file", note());
    fd.append("tenant_id", t.tenant_id);
    fd.append("identity_id", String(user.id));
    const up = await fx.svc.request("/v1/documents/upload", {
      method: "POST",
      headers: { "x-api-key": key },
      body: fd,
    });
    expect(up.status).toBe(503);
    expect(((await up.json()) as { detail: string }).detail).toContain(`client-docs-${t.tenant_id}`);
    const search = await fx.svc.request("/v1/documents/search", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ query: "note" }),
    });
    expect(search.status).toBe(503);
  });
});

describe("search validation", () => {
  test("k above 50, an empty query and unknown fields are 422", async () => {
    const big = await fx.search(alice, { query: "x", k: 51 });
    expect(big.status).toBe(422);
    expect(((await big.json()) as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual(["body", "k"]);
    expect((await fx.search(alice, { query: "  " })).status).toBe(422);
    expect((await fx.search(alice, { query: "x", visibility: "tenant_wide" })).status).toBe(422);
    expect((await fx.search(alice, { query: "x", doc_id: "not-a-uuid" })).status).toBe(422);
  });
});
