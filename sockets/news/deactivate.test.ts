/** Deactivating a tenant closes its open news streams at once; other tenants keep theirs. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../test/harness.ts";
import { NewsClient } from "../../test/news-client.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

let svc: TestService;
let served: Served;

beforeAll(async () => {
  svc = await startTestService();
  served = serve(svc.service);
});
afterAll(async () => {
  await served.stop();
  await svc.close();
});

test("a deactivated tenant's streams are closed with 4403; another tenant's stay open", async () => {
  const { store } = svc.service;
  const { tenantResolver: tenants } = svc.service.deps;
  const other = await store.createTenant({
    slug: `other-${crypto.randomUUID().slice(0, 8)}`,
    display_name: "Other",
    tier: "pilot",
    region: "local",
    provisioning_state: "active",
    is_active: true,
  });
  const otherUser = await store.createUser({
    tenant_id: other.tenant_id,
    email: "o@other.test",
    name: "O",
    tier: "pro",
  });
  const { generateApiKey } = await import("../../domain/user/api-keys.ts");
  const made = generateApiKey();
  await store.createApiKey({ userId: otherUser.id, hash: made.hash, prefix: made.prefix, label: "t", maxKeys: 5 });

  const mine = await NewsClient.connect(`${served.wsUrl}/v1/news/stream`, {
    "x-api-key": await svc.apiKey("stream-owner@example.com", "pro"),
  });
  const theirs = await NewsClient.connect(`${served.wsUrl}/v1/news/stream`, { "x-api-key": made.key });
  await mine.next("connected");
  await theirs.next("connected");

  await store.updateTenant(svc.tenantId, { provisioning_state: "deprovisioned", is_active: false });
  await tenants.invalidate(svc.tenantId);
  await waitFor("the deactivated tenant's stream to close", () => mine.closed !== null);
  expect(mine.closed?.code).toBe(4403);
  expect(theirs.isOpen).toBe(true);
  await theirs.close();
});
