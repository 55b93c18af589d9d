/**
 * BarrierStore contract on both control-plane dialects: barriers per tenant, idempotent
 * crossings, revocation seen by the very next read, the users.barriers mirror, the audit
 * trail, and the import of crossings recorded on users before the tables existed.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BARRIER_MIGRATIONS, SqlBarrierStore, SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import type { ControlPlaneStore } from "../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase } from "../engines.ts";

type Make = () => Promise<{ store: ControlPlaneStore; cleanup(): Promise<void> }>;

async function tenantWithUsers(store: ControlPlaneStore, n: number) {
  const slug = `b-${crypto.randomUUID().slice(0, 8)}`;
  const tenant = await store.createTenant({ slug, display_name: slug, tier: "enterprise", region: "local" });
  const users = [];
  for (let i = 0; i < n; i++) {
    users.push(
      await store.createUser({ tenant_id: tenant.tenant_id, email: `u${i}@${slug}.test`, name: "u", tier: "pro" }),
    );
  }
  return { tenantId: tenant.tenant_id, ids: users.map((u) => String(u.id)) };
}

function run(dialect: string, make: Make): void {
  describe(`BarrierStore contract: ${dialect}`, () => {
    test("crossings recorded on users before the barrier tables are imported", async () => {
      const { store, cleanup } = await make();
      try {
        await store.migrate();
        const { tenantId, ids } = await tenantWithUsers(store, 2);
        const legacy = crypto.randomUUID();
        await store.updateUser(Number(ids[0]), { barriers: [legacy, legacy] });
        await store.migrate(BARRIER_MIGRATIONS);
        const barriers = new SqlBarrierStore(store.sql);
        expect(await barriers.crossedBarriers(tenantId, ids[0] as string)).toEqual([legacy]);
        expect(await barriers.crossedBarriers(tenantId, ids[1] as string)).toEqual([]);
        expect((await barriers.get(tenantId, legacy))?.crossings).toBe(1);
      } finally {
        await store.close();
        await cleanup();
      }
    });

    test("create, cross, revoke: the next read sees it; history and the user mirror follow", async () => {
      const { store, cleanup } = await make();
      try {
        await store.migrate(BARRIER_MIGRATIONS);
        const barriers = new SqlBarrierStore(store.sql);
        const a = await tenantWithUsers(store, 2);
        const b = await tenantWithUsers(store, 1);
        const [alice, bob] = a.ids as [string, string];
        const wall = await barriers.create(a.tenantId, {
          name: "Project Falcon",
          description: "sell side",
          createdBy: alice,
        });
        expect(wall).toMatchObject({ tenant_id: a.tenantId, name: "Project Falcon", crossings: 0, created_by: alice });
        await expect(
          barriers.create(a.tenantId, { name: "Project Falcon", description: "", createdBy: alice }),
        ).rejects.toMatchObject({ code: "conflict" });
        // The same name in another tenant is another barrier.
        await barriers.create(b.tenantId, { name: "Project Falcon", description: "", createdBy: "x" });
        expect(await barriers.get(b.tenantId, wall.barrier_id)).toBeNull();
        expect((await barriers.list(a.tenantId)).map((x) => x.barrier_id)).toEqual([wall.barrier_id]);

        const first = await barriers.cross(a.tenantId, wall.barrier_id, bob, alice);
        expect(first.created).toBe(true);
        expect(first.crossing).toMatchObject({ identity_id: bob, crossed_by: alice, revoked_at: null });
        const again = await barriers.cross(a.tenantId, wall.barrier_id, bob, alice);
        expect(again.created).toBe(false);
        expect(await barriers.crossedBarriers(a.tenantId, bob)).toEqual([wall.barrier_id]);
        expect((await store.getUser(Number(bob)))?.barriers).toEqual([wall.barrier_id]);
        expect((await barriers.get(a.tenantId, wall.barrier_id))?.crossings).toBe(1);
        // Scoped by tenant: another tenant's identity, or this barrier from another tenant, is unknown.
        await expect(barriers.cross(a.tenantId, wall.barrier_id, b.ids[0] as string, alice)).rejects.toMatchObject({
          code: "not_found",
        });
        await expect(barriers.cross(b.tenantId, wall.barrier_id, b.ids[0] as string, "x")).rejects.toMatchObject({
          code: "not_found",
        });
        await expect(barriers.cross(a.tenantId, wall.barrier_id, "not-a-user", alice)).rejects.toMatchObject({
          code: "not_found",
        });
        expect(await barriers.crossedBarriers(b.tenantId, bob)).toEqual([]);

        expect(await barriers.revoke(a.tenantId, wall.barrier_id, bob, alice)).toBe(true);
        expect(await barriers.crossedBarriers(a.tenantId, bob)).toEqual([]);
        expect((await store.getUser(Number(bob)))?.barriers).toEqual([]);
        expect(await barriers.revoke(a.tenantId, wall.barrier_id, bob, alice)).toBe(false);
        expect(await barriers.crossings(a.tenantId, wall.barrier_id)).toEqual([]);
        const history = await barriers.crossings(a.tenantId, wall.barrier_id, { includeRevoked: true });
        expect(history).toHaveLength(1);
        expect(history[0]).toMatchObject({ identity_id: bob, revoked_by: alice });
        // Crossing again after a revocation opens a new record; the old one stays in the history.
        expect((await barriers.cross(a.tenantId, wall.barrier_id, bob, alice)).created).toBe(true);
        expect(await barriers.crossings(a.tenantId, wall.barrier_id, { includeRevoked: true })).toHaveLength(2);
        expect(await barriers.crossedBarriers(a.tenantId, bob)).toEqual([wall.barrier_id]);
      } finally {
        await store.close();
        await cleanup();
      }
    });
  });
}

run("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-barriers-"));
  return {
    store: new SqlControlPlaneStore(new SqliteClient(join(dir, "cp.sqlite"))),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

const pg = engineUrl("postgres");
if (pg) {
  run("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return { store: new SqlControlPlaneStore(new PostgresClient(db.url)), cleanup: db.drop };
  });
}
