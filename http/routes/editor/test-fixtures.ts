/**
 * Shared setup for the editor route tests: one service per test file, five users of the test
 * tenant (owner, editor, viewer, outsider, readonly) and one user of another tenant, plus
 * request helpers. test/collab-fixtures.ts holds in-memory ports and socket clients for the
 * collaboration actors; these tests go through the real service instead, so nothing there applies.
 *
 * `svc`, `otherTenant` and `collabSecret` are live bindings: `useEditorService()` registers the
 * hooks that fill them, and test bodies read them when they run.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import type { DocAst } from "../../../domain/editor/index.ts";
import { ensureUser, issueApiKey } from "../../../pipelines/demo-seed.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { signUserToken } from "../../auth/jwt.ts";

export let svc: TestService;
export type Creds = { key: string; jwt: string; id: number };
export const who: Record<string, Creds> = {};
export let otherTenant: Creds;
export let collabSecret: string;

export const para = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] });
export const docOf = (...texts: string[]) => ({ type: "doc", content: texts.map(para) });

export const headers = (c: Partial<Creds>, json = false): Record<string, string> => ({
  ...(c.key ? { "x-api-key": c.key } : {}),
  ...(c.jwt ? { authorization: `Bearer ${c.jwt}` } : {}),
  ...(json ? { "content-type": "application/json" } : {}),
});
export const call = (method: string, path: string, c: Partial<Creds>, body?: unknown) =>
  svc.request(path, {
    method,
    headers: headers(c, body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
export const create = async (c: Creds, body: unknown) => {
  const res = await call("POST", "/v1/editor/documents", c, body);
  expect(res.status).toBe(201);
  return (await res.json()) as { doc_id: string; doc_ast: DocAst; version: number };
};
export const putYjs = (docId: string, state: Uint8Array, secret: string | null = collabSecret) =>
  svc.request(`/v1/editor/documents/${docId}/yjs`, {
    method: "PUT",
    headers: { "content-type": "application/json", ...(secret === null ? {} : { "x-collab-secret": secret }) },
    body: JSON.stringify({
      yjs_state: Buffer.from(state).toString("base64"),
      updated_by_type: "collab",
      updated_by_id: "room-1",
    }),
  });
export const webhook = (token: string, documentName: string) =>
  svc.request("/v1/editor/hocuspocus/auth", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token, documentName, requestParameters: {} }),
  });
export const storedState = async (docId: string) => (await svc.service.deps.editor.loadState(docId)) as Uint8Array;

/** Starts the service before this file's tests and closes it after them. */
export function useEditorService(): void {
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
}

/** A document owned by `owner`, with `editor` and `viewer` members and `readonly` as an editor member. */
export async function sharedDoc(texts = ["Alpha", "Beta", "Gamma"]) {
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
