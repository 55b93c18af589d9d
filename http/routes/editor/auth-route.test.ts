import { describe, expect, test } from "bun:test";
import { otherTenant, sharedDoc, svc, useEditorService, webhook, who } from "../../../test/fixtures/editor-app.ts";

useEditorService();

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
