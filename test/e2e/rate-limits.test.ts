/**
 * Tier limits over HTTP on both counter backends, and across two service instances
 * sharing Postgres and Redis (the cluster profile).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";
import { startTestService, type TestService } from "../harness.ts";
import { deleteRedisPrefix } from "../redis.ts";

const me = (svc: TestService, token: string) =>
  svc.request("/v1/user/me", { headers: { authorization: `Bearer ${token}` } });

describe("rate limits, in-process counters", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  test("free tier: 5 per minute, the 6th is 429 with Retry-After and X-RateLimit-* headers", async () => {
    const token = await svc.token("free-rl@example.com", "free");
    for (let i = 1; i <= 5; i++) {
      const ok = await me(svc, token);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("x-ratelimit-limit")).toBe("5");
      expect(ok.headers.get("x-ratelimit-remaining")).toBe(String(5 - i));
    }
    const refused = await me(svc, token);
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/Rate limit exceeded/);
  });

  test("limits are per account: another free user is unaffected, and refused calls are not usage", async () => {
    const a = await svc.token("free-a@example.com", "free");
    const b = await svc.token("free-b@example.com", "free");
    for (let i = 0; i < 7; i++) await me(svc, a);
    expect((await me(svc, b)).status).toBe(200);
    await svc.service.store.updateUser((await svc.user("free-a@example.com")).id, { tier: "pro" });
    const body = (await (await me(svc, a)).json()) as { current_usage: { today: number } };
    // 5 accepted as free, the next 2 refused, then 1 accepted as pro.
    expect(body.current_usage.today).toBe(6);
  });
});

const pg = engineUrl("postgres");
const redis = engineUrl("redis");
if (pg && redis) {
  describe("rate limits and routing across two instances sharing Postgres and Redis", () => {
    let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
    let a: TestService;
    let b: TestService;
    const prefix = `cairn-t${crypto.randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      db = await freshPostgresDatabase(pg);
      const env = { DATABASE_URL: db.url, REDIS_URL: redis, CAIRN_REDIS_PREFIX: prefix };
      a = await startTestService(env, { tenantSlug: "shared" });
      b = await startTestService(env, { tenantSlug: "shared" });
    });
    afterAll(async () => {
      await a.close();
      await b.close();
      await db.drop();
      await deleteRedisPrefix(redis, `${prefix}:`);
    });

    test("3 requests on A and 3 on B: exactly 5 allowed for a free account", async () => {
      const token = await a.token("shared-free@example.com", "free");
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await me(a, token)).status);
        statuses.push((await me(b, token)).status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    });

    test("deactivating on A refuses the very next request on B", async () => {
      expect(a.tenantId).toBe(b.tenantId);
      const token = await a.token("shared-pro@example.com", "pro");
      expect((await me(b, token)).status).toBe(200); // B has the tenant cached now
      await a.service.store.updateTenant(a.tenantId, { provisioning_state: "deprovisioned", is_active: false });
      await a.service.deps.tenantResolver.invalidate(a.tenantId);
      const refused = await me(b, token);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/not active/);
    });
  });
}
