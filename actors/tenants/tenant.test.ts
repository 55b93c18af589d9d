import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { MemoryBus, MemoryPubSub, RedisPubSub } from "../../adapters/pubsub/index.ts";
import { SqliteClient } from "../../adapters/sql/index.ts";
import { AppError, type ErrorCode } from "../../domain/errors.ts";
import type { ControlPlaneStore, PubSub, Tenant } from "../../domain/ports.ts";
import { engineUrl, uniqueName } from "../../test/engines.ts";
import { waitFor } from "../../test/wait.ts";
import { TENANT_INVALIDATE_CHANNEL, TenantDirectory, type TenantDirectoryOptions, type TenantStore } from "./tenant.ts";

let dir: string;
let store: ControlPlaneStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-tenant-"));
  store = new SqlControlPlaneStore(new SqliteClient(join(dir, "cp.sqlite")));
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The real store, with its getTenant calls counted. */
function counting(inner: ControlPlaneStore): TenantStore & { calls: number } {
  const s = {
    calls: 0,
    getTenant: async (id: string) => {
      s.calls++;
      return inner.getTenant(id);
    },
  };
  return s;
}

async function activeTenant(): Promise<Tenant> {
  return store.createTenant({
    slug: uniqueName("t"),
    display_name: "T",
    tier: "pilot",
    region: "eu",
    provisioning_state: "active",
    is_active: true,
  });
}

async function codeOf(p: Promise<unknown>): Promise<ErrorCode | "ok"> {
  try {
    await p;
    return "ok";
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
}

const quietLogger = {
  warnings: [] as string[],
  warn: (_o: object, m: string) => void quietLogger.warnings.push(m),
  error: () => {},
};

const open: TenantDirectory[] = [];
async function directory(
  s: TenantStore,
  pubsub: PubSub,
  opts: Partial<TenantDirectoryOptions> = {},
): Promise<TenantDirectory> {
  const d = new TenantDirectory(s, pubsub, { ttlMs: 600_000, logger: quietLogger, ...opts });
  await d.start();
  open.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});

describe("TenantDirectory (one instance)", () => {
  test("resolves an active tenant; refuses unknown (not cached) and inactive ones", async () => {
    const d = await directory(store, new MemoryPubSub());
    const t = await activeTenant();
    expect((await d.resolve(t.tenant_id)).slug).toBe(t.slug);

    const laterId = crypto.randomUUID();
    expect(await codeOf(d.resolve(laterId))).toBe("not_found");
    await store.createTenant({
      tenant_id: laterId,
      slug: uniqueName("late"),
      display_name: "L",
      tier: "pilot",
      region: "eu",
      provisioning_state: "active",
      is_active: true,
    });
    expect((await d.resolve(laterId)).tenant_id).toBe(laterId);

    for (const state of ["provisioning", "failed", "deprovisioned"] as const) {
      const x = await store.createTenant({
        slug: uniqueName(state),
        display_name: "X",
        tier: "pilot",
        region: "eu",
        provisioning_state: state,
        is_active: false,
      });
      expect(await codeOf(d.resolve(x.tenant_id))).toBe("tenant_inactive");
      // Cached, and still refused on every resolve.
      expect(d.peek(x.tenant_id)?.provisioning_state).toBe(state);
      expect(await codeOf(d.resolve(x.tenant_id))).toBe("tenant_inactive");
    }
    const flagged = await store.createTenant({
      slug: uniqueName("flag"),
      display_name: "F",
      tier: "pilot",
      region: "eu",
      provisioning_state: "active",
      is_active: false,
    });
    expect(await codeOf(d.resolve(flagged.tenant_id))).toBe("tenant_inactive");
  });

  test("a burst of concurrent resolves for one tenant reads the store once; so does a burst after the TTL", async () => {
    let clock = 1_000;
    const s = counting(store);
    const d = await directory(s, new MemoryPubSub(), { ttlMs: 5_000, now: () => clock });
    const t = await activeTenant();
    const burst = () => Promise.all(Array.from({ length: 200 }, () => d.resolve(t.tenant_id)));
    expect((await burst()).every((x) => x.tenant_id === t.tenant_id)).toBe(true);
    expect(s.calls).toBe(1);
    await burst();
    expect(s.calls).toBe(1);
    clock += 5_000;
    await burst();
    expect(s.calls).toBe(2);
  });

  test("the TTL bounds staleness without any invalidation", async () => {
    let clock = 0;
    const d = await directory(store, new MemoryPubSub(), { ttlMs: 1_000, now: () => clock });
    const t = await activeTenant();
    await d.resolve(t.tenant_id);
    await store.updateTenant(t.tenant_id, { provisioning_state: "deprovisioned", is_active: false });
    expect(await codeOf(d.resolve(t.tenant_id))).toBe("ok"); // cached for up to ttlMs
    clock += 1_000;
    expect(await codeOf(d.resolve(t.tenant_id))).toBe("tenant_inactive");
  });

  test("idle tenants are unloaded", async () => {
    const d = await directory(store, new MemoryPubSub(), { idleMs: 10 });
    const t = await activeTenant();
    await d.resolve(t.tenant_id);
    expect(d.peek(t.tenant_id)).toBeDefined();
    await waitFor("idle unload", () => d.peek(t.tenant_id) === undefined);
    expect(d.size).toBe(0);
  });

  test("refuses to resolve before start and after close; close is idempotent and unsubscribes", async () => {
    const bus = new MemoryBus();
    const d = new TenantDirectory(store, new MemoryPubSub(bus), { ttlMs: 1_000, logger: quietLogger });
    const t = await activeTenant();
    expect(await codeOf(d.resolve(t.tenant_id))).toBe("not_ready");
    await d.start();
    await d.start();
    expect(bus.channelCount).toBe(1);
    await d.resolve(t.tenant_id);
    await Promise.all([d.close(), d.close()]);
    expect(bus.channelCount).toBe(0);
    expect(await codeOf(d.resolve(t.tenant_id))).toBe("not_ready");
  });

  test("malformed invalidations are logged and ignored", async () => {
    const ps = new MemoryPubSub();
    const d = await directory(store, ps);
    const t = await activeTenant();
    await d.resolve(t.tenant_id);
    quietLogger.warnings.length = 0;
    await ps.publish(TENANT_INVALIDATE_CHANNEL, "not json");
    await ps.publish(TENANT_INVALIDATE_CHANNEL, JSON.stringify({ v: 1, tenant: t.tenant_id }));
    expect(quietLogger.warnings).toHaveLength(2);
    expect(d.peek(t.tenant_id)).toBeDefined();
  });
});

/**
 * Two service instances over one control-plane store, joined by a pub/sub medium.
 * Instance B holds the tenant in its cache (TTL 10 minutes); the tenant is deactivated
 * in the store and A invalidates: B must refuse the very next resolve.
 */
function twoInstanceSuite(
  name: string,
  pair: () => Promise<{ a: PubSub; b: PubSub; close(): Promise<void> }>,
  /** The memory bus delivers inside publish(): B has dropped the entry when invalidate returns. */
  deliversBeforePublishReturns: boolean,
) {
  describe(`TenantDirectory across two instances: ${name}`, () => {
    test("deactivate + invalidate on A makes B refuse its next resolve, without waiting for the TTL", async () => {
      const buses = await pair();
      try {
        const sb = counting(store);
        const a = await directory(store, buses.a);
        const b = await directory(sb, buses.b);
        const t = await activeTenant();
        await a.resolve(t.tenant_id);
        await b.resolve(t.tenant_id);
        expect(sb.calls).toBe(1);

        await store.updateTenant(t.tenant_id, { provisioning_state: "deprovisioned", is_active: false });
        // Without an invalidation B still trusts its cache: this is what the message fixes.
        expect(await codeOf(b.resolve(t.tenant_id))).toBe("ok");

        await a.invalidate(t.tenant_id);
        expect(a.peek(t.tenant_id)).toBeUndefined();
        if (deliversBeforePublishReturns) expect(b.peek(t.tenant_id)).toBeUndefined();
        // Delivery to another process is asynchronous on Redis; wait for it (milliseconds),
        // not for the ten-minute TTL.
        await waitFor("B to drop the tenant", () => b.peek(t.tenant_id) === undefined, { timeoutMs: 3_000 });
        expect(await codeOf(b.resolve(t.tenant_id))).toBe("tenant_inactive");
        expect(await codeOf(a.resolve(t.tenant_id))).toBe("tenant_inactive");
        expect(sb.calls).toBe(2);

        // And back: reactivation + invalidation lets B serve it again at once.
        await store.updateTenant(t.tenant_id, { provisioning_state: "active", is_active: true });
        await b.invalidate(t.tenant_id);
        await waitFor("A to drop the tenant", () => a.peek(t.tenant_id) === undefined, { timeoutMs: 3_000 });
        expect(await codeOf(a.resolve(t.tenant_id))).toBe("ok");
        expect(await codeOf(b.resolve(t.tenant_id))).toBe("ok");
      } finally {
        await Promise.all(open.splice(0).map((d) => d.close()));
        await buses.close();
      }
    });
  });
}

twoInstanceSuite(
  "shared memory bus",
  async () => {
    const bus = new MemoryBus();
    const a = new MemoryPubSub(bus);
    const b = new MemoryPubSub(bus);
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  },
  true,
);

const redisUrl = engineUrl("redis");
if (redisUrl) {
  twoInstanceSuite(
    "real Redis pub/sub",
    async () => {
      const a = new RedisPubSub({ url: redisUrl });
      const b = new RedisPubSub({ url: redisUrl });
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
    },
    false,
  );
}
