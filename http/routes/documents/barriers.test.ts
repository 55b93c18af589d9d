import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SqliteDocumentIndex } from "../../../adapters/docindex/index.ts";
import { ensureUser } from "../../../cli/demo-seed.ts";
import type { User } from "../../../domain/ports.ts";
import { ACL_OPEN, chunks, meta, unitVector } from "../../../test/contracts/docindex.contract.ts";
import { startTestService, type TestService } from "../../../test/harness.ts";
import { prng } from "../../../test/prng.ts";
import { signUserToken } from "../../auth/jwt.ts";

let svc: TestService;
let ownerToken: string;
let viewerToken: string;
let otherOwnerToken: string;
let analyst: User;

async function tokenFor(u: User): Promise<string> {
  const { secrets, config } = svc.service;
  return signUserToken(
    { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
    { userId: u.id, email: u.email, tenantId: u.tenant_id },
  );
}

beforeAll(async () => {
  svc = await startTestService();
  ownerToken = await tokenFor(await svc.user("owner@barriers.test", "enterprise", ["owner"]));
  viewerToken = await tokenFor(await svc.user("viewer@barriers.test", "enterprise", ["viewer"]));
  analyst = await svc.user("analyst@barriers.test", "enterprise", ["analyst"]);
  const { store } = svc.service;
  const slug = `other-${crypto.randomUUID().slice(0, 6)}`;
  const other = await store.createTenant({
    slug,
    display_name: slug,
    tier: "enterprise",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  otherOwnerToken = await tokenFor(
    await ensureUser(store, other.tenant_id, `o@${slug}.test`, "enterprise", undefined, ["owner"]),
  );
});
afterAll(() => svc.close());

async function call(method: string, path: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await svc.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as Record<string, unknown> | null };
}

describe("information barrier admin API", () => {
  test("owners only, by JWT; tenant-scoped; names unique per tenant; inputs validated", async () => {
    const created = await call("POST", "/v1/admin/barriers", ownerToken, { name: "Falcon", description: "sell side" });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ tenant_id: svc.tenantId, name: "Falcon", crossings: 0 });
    const id = created.json?.barrier_id as string;
    expect((await call("POST", "/v1/admin/barriers", ownerToken, { name: "Falcon" })).status).toBe(409);
    expect((await call("POST", "/v1/admin/barriers", viewerToken, { name: "Other" })).status).toBe(403);
    expect((await call("GET", "/v1/admin/barriers", viewerToken)).status).toBe(403);
    expect((await call("GET", "/v1/admin/barriers", null)).status).toBe(401);
    const key = await svc.apiKey("owner@barriers.test", "enterprise");
    const viaKey = await svc.request("/v1/admin/barriers", { headers: { "x-api-key": key } });
    expect(viaKey.status).toBe(401);
    const bad = await call("POST", "/v1/admin/barriers", ownerToken, { name: "", extra: 1 });
    expect(bad.status).toBe(422);
    const locs = ((bad.json?.detail ?? []) as { loc: string[] }[]).map((d) => d.loc.join("."));
    expect(locs).toContain("body.name");
    expect((await call("GET", "/v1/admin/barriers/not-a-uuid", ownerToken)).status).toBe(422);
    // Another tenant's owner sees none of it.
    expect((await call("GET", "/v1/admin/barriers", otherOwnerToken)).json as unknown).toEqual([]);
    expect((await call("GET", `/v1/admin/barriers/${id}`, otherOwnerToken)).status).toBe(404);
    expect(
      (await call("POST", `/v1/admin/barriers/${id}/crossings`, otherOwnerToken, { identity_id: String(analyst.id) }))
        .status,
    ).toBe(404);
    const list = await call("GET", "/v1/admin/barriers", ownerToken);
    expect((list.json as unknown as { barrier_id: string }[]).map((b) => b.barrier_id)).toContain(id);
  });

  test("create → cross → the document is visible; revoke → hidden on the very next search", async () => {
    const { documents } = svc.service.deps;
    const tenant = { tenantId: svc.tenantId, slug: "t" };
    const index = svc.service.engines.documentIndex as SqliteDocumentIndex;
    await index.ensureNamespace(tenant);
    const created = await call("POST", "/v1/admin/barriers", ownerToken, { name: "Osprey" });
    const barrierId = created.json?.barrier_id as string;
    const docId = crypto.randomUUID();
    const r = prng(7);
    await index.putDocument(
      tenant,
      meta(docId, { acl: { ...ACL_OPEN, barrier_id: barrierId } }),
      chunks(docId, ["osprey merger model"], [unitVector(r)]),
    );
    const visibleTo = async (u: User) => {
      const access = await documents.accessFor({ tenantId: u.tenant_id, userId: u.id, roles: u.roles });
      const hits = await documents.search(tenant, access, { query: "osprey", filters: {}, k: 5, mode: "bm25" });
      return hits.map((h) => h.doc_id);
    };
    expect(await visibleTo(analyst)).toEqual([]);

    const crossed = await call("POST", `/v1/admin/barriers/${barrierId}/crossings`, ownerToken, {
      identity_id: String(analyst.id),
    });
    expect(crossed.status).toBe(201);
    expect(crossed.json).toMatchObject({ identity_id: String(analyst.id), revoked_at: null });
    const again = await call("POST", `/v1/admin/barriers/${barrierId}/crossings`, ownerToken, {
      identity_id: String(analyst.id),
    });
    expect(again.status).toBe(200);
    expect(await visibleTo(analyst)).toEqual([docId]);
    const detail = await call("GET", `/v1/admin/barriers/${barrierId}`, ownerToken);
    expect(detail.json).toMatchObject({ crossings: 1, crossed_by: [{ identity_id: String(analyst.id) }] });

    const revoked = await call("DELETE", `/v1/admin/barriers/${barrierId}/crossings/${analyst.id}`, ownerToken);
    expect(revoked.status).toBe(204);
    expect(await visibleTo(analyst)).toEqual([]);
    expect((await call("DELETE", `/v1/admin/barriers/${barrierId}/crossings/${analyst.id}`, ownerToken)).status).toBe(
      404,
    );
    const history = await call("GET", `/v1/admin/barriers/${barrierId}?include_revoked=true`, ownerToken);
    expect(history.json).toMatchObject({ crossings: 0, crossed_by: [{ identity_id: String(analyst.id) }] });
    expect(
      (history.json as unknown as { crossed_by: { revoked_at: string | null }[] }).crossed_by[0]?.revoked_at,
    ).not.toBeNull();
    // The user profile's barriers field mirrors the active crossings.
    expect((await svc.service.store.getUser(analyst.id))?.barriers).toEqual([]);
    // Unknown identity: 404; a malformed one: 422.
    expect(
      (await call("POST", `/v1/admin/barriers/${barrierId}/crossings`, ownerToken, { identity_id: "999999" })).status,
    ).toBe(404);
    expect(
      (await call("POST", `/v1/admin/barriers/${barrierId}/crossings`, ownerToken, { identity_id: "abc" })).status,
    ).toBe(422);
  });
});
