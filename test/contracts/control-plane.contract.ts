/** Contract suite for ControlPlaneStore: runs unchanged against every adapter. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ControlPlaneStore } from "../../domain/ports.ts";

export function runControlPlaneContract(
  name: string,
  make: () => Promise<{ store: ControlPlaneStore; cleanup: () => Promise<void> }>,
): void {
  describe(`ControlPlaneStore contract: ${name}`, () => {
    let store: ControlPlaneStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ store, cleanup } = await make());
      await store.migrate();
    });
    afterAll(async () => {
      await store.close();
      await cleanup();
    });

    test("migrate is idempotent", async () => {
      await store.migrate();
      await store.migrate();
      await store.ping();
    });

    test("settings: first writer wins", async () => {
      expect(await store.getSetting("k1")).toBeNull();
      expect(await store.putSettingIfAbsent("k1", "a")).toBe("a");
      expect(await store.putSettingIfAbsent("k1", "b")).toBe("a");
      expect(await store.getSetting("k1")).toBe("a");
    });

    test("tenants: create, read by id and slug, update state, unique slug", async () => {
      const t = await store.createTenant({ slug: "acme", display_name: "Acme", tier: "pilot", region: "eu-west-1" });
      expect(t.provisioning_state).toBe("provisioning");
      expect(t.is_active).toBe(false);
      expect(t.completed_steps).toEqual([]);
      expect(new Date(t.provisioned_at).toISOString()).toBe(t.provisioned_at);
      expect((await store.getTenantBySlug("acme"))?.tenant_id).toBe(t.tenant_id);
      await Bun.sleep(2);
      const u = await store.updateTenant(t.tenant_id, {
        provisioning_state: "active",
        is_active: true,
        completed_steps: ["step_1", "step_2"],
      });
      expect(u.is_active).toBe(true);
      expect(u.completed_steps).toEqual(["step_1", "step_2"]);
      expect(u.state_changed_at > t.state_changed_at).toBe(true);
      await expect(
        store.createTenant({ slug: "acme", display_name: "Other", tier: "pilot", region: "us" }),
      ).rejects.toThrow();
      expect((await store.listTenants()).map((x) => x.slug)).toContain("acme");
      await expect(store.updateTenant(crypto.randomUUID(), { last_error: "x" })).rejects.toThrow();
    });

    test("tenants: compare-and-set transitions; roles and settings are idempotent", async () => {
      const t = await store.createTenant({ slug: "cas-t", display_name: "C", tier: "pilot", region: "us" });
      expect(await store.transitionTenant(t.tenant_id, ["failed"], { provisioning_state: "active" })).toBeNull();
      const moved = await store.transitionTenant(t.tenant_id, ["provisioning", "failed"], {
        provisioning_state: "failed",
        failed_steps: ["step_3"],
        last_error: "boom",
      });
      expect(moved?.provisioning_state).toBe("failed");
      expect(moved?.failed_steps).toEqual(["step_3"]);
      // Two racing resumes: exactly one wins.
      const wins = await Promise.all([
        store.transitionTenant(t.tenant_id, ["failed"], { provisioning_state: "provisioning" }),
        store.transitionTenant(t.tenant_id, ["failed"], { provisioning_state: "provisioning" }),
      ]);
      expect(wins.filter((w) => w !== null)).toHaveLength(1);

      const roles = [
        { role: "viewer", description: "read" },
        { role: "owner", description: "all" },
      ];
      await store.ensureTenantRoles(t.tenant_id, roles);
      await store.ensureTenantRoles(t.tenant_id, [...roles, { role: "editor", description: "write" }]);
      expect((await store.listTenantRoles(t.tenant_id)).map((r) => r.role)).toEqual(["editor", "owner", "viewer"]);

      expect(await store.getTenantSetting(t.tenant_id, "k")).toBeNull();
      await store.putTenantSetting(t.tenant_id, "k", "1");
      await store.putTenantSetting(t.tenant_id, "k", "2");
      expect(await store.getTenantSetting(t.tenant_id, "k")).toBe("2");
      expect(await store.deleteTenantSetting(t.tenant_id, "k")).toBe(true);
      expect(await store.deleteTenantSetting(t.tenant_id, "k")).toBe(false);
    });

    test("users: create, lookup (case-insensitive email), update roles", async () => {
      const t = await store.createTenant({ slug: "users-t", display_name: "U", tier: "enterprise", region: "us" });
      const u = await store.createUser({ tenant_id: t.tenant_id, email: "Ann@Example.com", name: "Ann", tier: "pro" });
      expect(Number.isInteger(u.id)).toBe(true);
      expect(u.email).toBe("ann@example.com");
      expect(u.email_verified).toBe(false);
      expect((await store.getUserByEmail("ANN@example.com"))?.id).toBe(u.id);
      const v = await store.updateUser(u.id, { roles: ["analyst"], barriers: ["b-1"], email_verified: true });
      expect(v.roles).toEqual(["analyst"]);
      expect(v.barriers).toEqual(["b-1"]);
      expect(v.email_verified).toBe(true);
      expect(await store.getUser(999_999)).toBeNull();
    });

    test("api keys: per-user limit holds under concurrency; lookup by hash; delete", async () => {
      const t = await store.createTenant({ slug: "keys-t", display_name: "K", tier: "pilot", region: "us" });
      const u = await store.createUser({ tenant_id: t.tenant_id, email: "k@example.com", name: "K", tier: "free" });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store.createApiKey({ userId: u.id, hash: `h${i}`, prefix: `p${i}`, label: "x", maxKeys: 2 }),
        ),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(2);
      expect(await store.listApiKeys(u.id)).toHaveLength(2);
      const made = results.find((r) => r !== null);
      const hashIndex = results.indexOf(made ?? null);
      const found = await store.findUserByApiKeyHash(`h${hashIndex}`);
      expect(found?.user.id).toBe(u.id);
      expect(found?.key.id).toBe(made?.id as string);
      expect(await store.findUserByApiKeyHash("nope")).toBeNull();
      await store.touchApiKeys([made?.id as string], "2026-01-02T00:00:00.000Z");
      expect((await store.listApiKeys(u.id)).find((k) => k.id === made?.id)?.last_used_at).toBe(
        "2026-01-02T00:00:00.000Z",
      );
      expect(await store.deleteApiKey(u.id, made?.id as string)).toBe(true);
      expect(await store.deleteApiKey(u.id, made?.id as string)).toBe(false);
      expect(await store.findUserByApiKeyHash(`h${hashIndex}`)).toBeNull();
    });

    test("usage: increments add up by day and month", async () => {
      const t = await store.createTenant({ slug: "usage-t", display_name: "U", tier: "pilot", region: "us" });
      const u = await store.createUser({ tenant_id: t.tenant_id, email: "use@example.com", name: "U", tier: "free" });
      await store.addUsage([
        { userId: u.id, day: "2026-03-01", count: 2 },
        { userId: u.id, day: "2026-03-05", count: 3 },
        { userId: u.id, day: "2026-02-28", count: 7 },
      ]);
      await store.addUsage([{ userId: u.id, day: "2026-03-05", count: 1 }]);
      expect(await store.getUsage(u.id, "2026-03-05")).toEqual({ today: 4, this_month: 6 });
      expect(await store.getUsage(u.id, "2026-04-01")).toEqual({ today: 0, this_month: 0 });
    });

    test("usage: a deleted user's increments are returned as orphaned, the rest are written", async () => {
      const t = await store.createTenant({ slug: "usage-o", display_name: "U", tier: "pilot", region: "us" });
      const keep = await store.createUser({
        tenant_id: t.tenant_id,
        email: "keep@example.com",
        name: "K",
        tier: "free",
      });
      const gone = await store.createUser({
        tenant_id: t.tenant_id,
        email: "gone@example.com",
        name: "G",
        tier: "free",
      });
      await store.addUsage([{ userId: gone.id, day: "2026-03-05", count: 1 }]);
      await store.sql.run("DELETE FROM users WHERE id = ?", [gone.id]);
      const orphan = { userId: gone.id, day: "2026-03-05", count: 4 };
      const result = await store.addUsage([
        { userId: keep.id, day: "2026-03-05", count: 2 },
        orphan,
        { userId: keep.id, day: "2026-03-06", count: 3 },
      ]);
      expect(result.orphaned).toEqual([orphan]);
      expect(await store.getUsage(keep.id, "2026-03-06")).toEqual({ today: 3, this_month: 5 });
      expect(await store.getUsage(gone.id, "2026-03-05")).toEqual({ today: 0, this_month: 0 });
      expect(await store.addUsage([])).toEqual({ orphaned: [] });
    });
  });
}
