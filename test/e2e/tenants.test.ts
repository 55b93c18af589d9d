/**
 * Tenant lifecycle on the embedded profile with the real lakehouse gateway:
 * create -> active, a failure injected at every step then resumed (exactly one of
 * everything afterwards), deactivate, and the spec's error cases.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lakehouseNamespace } from "../../domain/tenants/namespaces.ts";
import { startTestService, type TestService } from "../harness.ts";
import { type GatewayHandle, startGateway } from "../lakehouse.ts";
import { waitFor } from "../wait.ts";

let gateway: GatewayHandle | undefined;
let svc: TestService;
let admin: Record<string, string>;

beforeAll(async () => {
  gateway = await startGateway();
  svc = await startTestService({
    CAIRN_TEST_FAULTS: "1",
    ...(gateway ? { CAIRN_LAKEHOUSE_URL: gateway.url } : {}),
  });
  admin = { "x-api-key": svc.service.secrets.adminApiKey, "content-type": "application/json" };
}, 90_000);
afterAll(async () => {
  await svc?.close();
  await gateway?.stop();
});

const post = (body: unknown, headers = admin) =>
  svc.request("/v1/admin/tenants", { method: "POST", headers, body: JSON.stringify(body) });
const status = async (slug: string) =>
  (await (await svc.request(`/v1/admin/tenants/${slug}/status`, { headers: admin })).json()) as {
    provisioning_state: string;
    is_active: boolean;
    completed_steps: string[];
    failed_steps: string[];
    last_error: string | null;
    tenant_id: string;
  };
const settle = async (slug: string) => {
  await waitFor(`tenant ${slug} to settle`, async () => (await status(slug)).provisioning_state !== "provisioning", {
    timeoutMs: 30_000,
    everyMs: 20,
  });
  return status(slug);
};
const ALL_STEPS = Array.from({ length: 9 }, (_, i) => `step_${i + 1}`);

/** Every engine holds exactly one namespace for the tenant, and one admin with one key. */
async function expectExactlyOneOfEverything(slug: string, tenantId: string): Promise<void> {
  const { engines, store } = svc.service;
  const ref = { tenantId, slug };
  for (const port of [
    engines.documentIndex,
    engines.timeseries,
    engines.graph,
    ...(engines.lakehouse ? [engines.lakehouse] : []),
  ]) {
    const names = await port.listNamespaces();
    expect(names.filter((n) => n === port.namespaceOf(ref))).toHaveLength(1);
    expect(await port.namespaceExists(ref)).toBe(true);
  }
  if (engines.lakehouse) expect(engines.lakehouse.namespaceOf(ref)).toBe(lakehouseNamespace(slug));
  const admins = (
    await store.sql.all<{ id: number }>("SELECT id FROM users WHERE tenant_id = ? AND email LIKE 'admin@%'", [tenantId])
  ).map((r) => r.id);
  expect(admins).toHaveLength(1);
  expect(await store.listApiKeys(admins[0] as number)).toHaveLength(1);
  expect((await store.listTenantRoles(tenantId)).map((r) => r.role)).toEqual(["editor", "owner", "viewer"]);
}

describe("tenant administration", () => {
  test("create: 202 summary, pipeline runs to active, status and list agree", async () => {
    const res = await post({
      slug: "acme-capital",
      display_name: "Acme Capital",
      tier: "enterprise",
      region: "eu-west-1",
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "display_name",
        "is_active",
        "provisioned_at",
        "provisioning_state",
        "region",
        "slug",
        "tenant_id",
        "tier",
      ].sort(),
    );
    expect(body).toMatchObject({
      slug: "acme-capital",
      provisioning_state: "provisioning",
      is_active: false,
      tier: "enterprise",
    });
    const st = await settle("acme-capital");
    expect(st.provisioning_state).toBe("active");
    expect(st.is_active).toBe(true);
    expect(st.completed_steps).toEqual(ALL_STEPS);
    expect(st.failed_steps).toEqual([]);
    expect(st.last_error).toBeNull();
    const list = (await (await svc.request("/v1/admin/tenants", { headers: admin })).json()) as {
      slug: string;
      is_active: boolean;
    }[];
    expect(list.find((t) => t.slug === "acme-capital")?.is_active).toBe(true);
    await expectExactlyOneOfEverything("acme-capital", st.tenant_id);

    // The initial API key is handed over once and works for the tenant admin.
    const claim = await svc.request("/v1/admin/tenants/acme-capital/initial-api-key", {
      method: "POST",
      headers: admin,
    });
    expect(claim.status).toBe(200);
    const { api_key, email } = (await claim.json()) as { api_key: string; email: string };
    expect(email).toBe("admin@acme-capital.cairn.local");
    const found = await svc.service.store.findUserByApiKeyHash(
      new Bun.CryptoHasher("sha256").update(api_key).digest("hex"),
    );
    expect(found?.user.roles).toEqual(["owner"]);
    expect(
      (await svc.request("/v1/admin/tenants/acme-capital/initial-api-key", { method: "POST", headers: admin })).status,
    ).toBe(404);

    // Posting an active slug again is a conflict, not a second tenant.
    expect((await post({ slug: "acme-capital", display_name: "X", tier: "pilot", region: "us" })).status).toBe(409);
  }, 60_000);

  for (const kind of ["fail", "fail_after"] as const) {
    test(`a ${kind} fault at every step halts as failed; POST with the same slug resumes to active`, async () => {
      for (const step of ALL_STEPS) {
        const slug = `f-${kind.replace("_", "-")}-${step.replace("_", "")}`;
        svc.service.faults.set(step, kind);
        expect((await post({ slug, display_name: slug, tier: "pilot", region: "us-east-1" })).status).toBe(202);
        const failed = await settle(slug);
        if (kind === "fail_after" && step === "step_9") {
          // Step 9's work is the activation itself: once it is done the tenant is live.
          expect(failed.provisioning_state).toBe("active");
          await expectExactlyOneOfEverything(slug, failed.tenant_id);
          continue;
        }
        expect(failed.provisioning_state).toBe("failed");
        expect(failed.is_active).toBe(false);
        expect(failed.failed_steps).toEqual([step]);
        expect(failed.last_error).toContain(`injected fault`);
        expect(failed.last_error).toContain(step);
        expect(failed.completed_steps).toEqual(ALL_STEPS.slice(0, ALL_STEPS.indexOf(step)));

        expect((await post({ slug, display_name: slug, tier: "pilot", region: "us-east-1" })).status).toBe(202);
        const done = await settle(slug);
        expect(done.provisioning_state).toBe("active");
        expect(done.completed_steps).toEqual(ALL_STEPS);
        expect(done.failed_steps).toEqual([]);
        await expectExactlyOneOfEverything(slug, done.tenant_id);
      }
    }, 240_000);
  }

  test("deactivate: 204, deprovisioned, no data deleted, the tenant's next request is refused", async () => {
    await post({ slug: "to-close", display_name: "To Close", tier: "pilot", region: "us" });
    const st = await settle("to-close");
    const user = await svc.service.store.createUser({
      tenant_id: st.tenant_id,
      email: "u@to-close.test",
      name: "U",
      tier: "pro",
    });
    const token = await svc.token(user.email);
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await svc.request("/v1/user/me", auth)).status).toBe(200);

    const del = await svc.request("/v1/admin/tenants/to-close", { method: "DELETE", headers: admin });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    const after = await status("to-close");
    expect(after.provisioning_state).toBe("deprovisioned");
    expect(after.is_active).toBe(false);
    expect((await svc.request("/v1/user/me", auth)).status).toBe(403);
    await expectExactlyOneOfEverything("to-close", st.tenant_id);
    expect((await post({ slug: "to-close", display_name: "Again", tier: "pilot", region: "us" })).status).toBe(409);
  }, 60_000);

  test("errors: 404 for unknown slugs, 422 for bad bodies, 401/403 for wrong credentials", async () => {
    expect((await svc.request("/v1/admin/tenants/nope/status", { headers: admin })).status).toBe(404);
    const del = await svc.request("/v1/admin/tenants/nope", { method: "DELETE", headers: admin });
    expect(del.status).toBe(404);
    expect(await del.json()).toEqual({ detail: "No tenant with slug 'nope'" });

    const bad = await post({ slug: "Bad Slug!", display_name: "", tier: "gold", region: "us" });
    expect(bad.status).toBe(422);
    const locs = ((await bad.json()) as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.slug", "body.display_name", "body.tier"]));

    const userKey = await svc.apiKey("not-admin@example.com", "enterprise");
    expect((await svc.request("/v1/admin/tenants", { headers: { "x-api-key": userKey } })).status).toBe(403);
    expect((await svc.request("/v1/admin/tenants")).status).toBe(401);
    const token = await svc.token("not-admin@example.com");
    expect((await svc.request("/v1/admin/tenants", { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );
  });

  test("lakehouse health needs no credentials", async () => {
    const res = await svc.request("/v1/admin/lakehouse/health");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string };
    expect(body.status).toBe(gateway ? "ok" : "unavailable");
  });
});
