/**
 * Contract suite for NamespacePort: runs unchanged against every engine's adapter.
 * Each test gets a fresh data directory, so "exactly these namespaces" is provable.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NamespacePort, TenantRef } from "../../domain/tenants/namespaces.ts";

/** The port plus a way to see inside a namespace: rows/records in it, 0 when it is empty. */
export type NamespaceAdapter = NamespacePort & { countRecords(t: TenantRef): Promise<number> };

function tenant(slug: string): TenantRef {
  return { tenantId: crypto.randomUUID(), slug };
}

export function runNamespaceContract(name: string, make: (dataDir: string) => NamespaceAdapter): void {
  describe(`NamespacePort contract: ${name}`, () => {
    let dir: string;
    let port: NamespaceAdapter;
    const extra: NamespaceAdapter[] = [];

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "cairn-ns-"));
      port = make(dir);
    });
    afterEach(async () => {
      for (const p of [port, ...extra.splice(0)]) await p.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test("a fresh store holds no namespaces and answers ping", async () => {
      await port.ping();
      expect(await port.listNamespaces()).toEqual([]);
      expect(await port.namespaceExists(tenant("fresh"))).toBe(false);
    });

    test("ensure is idempotent and leaves exactly one namespace", async () => {
      const t = tenant("acme");
      const first = await port.ensureNamespace(t);
      expect(first).toBe(port.namespaceOf(t));
      expect(await port.ensureNamespace(t)).toBe(first);
      expect(await port.namespaceExists(t)).toBe(true);
      expect(await port.listNamespaces()).toEqual([first]);
      expect(await port.countRecords(t)).toBe(0);
    });

    test("concurrent ensure calls for one tenant neither fail nor duplicate", async () => {
      const t = tenant("racy");
      const names = await Promise.all(Array.from({ length: 8 }, () => port.ensureNamespace(t)));
      expect(new Set(names)).toEqual(new Set([port.namespaceOf(t)]));
      expect(await port.listNamespaces()).toEqual([port.namespaceOf(t)]);
      await port.smokeTest(t);
    });

    test("concurrent ensure calls for several tenants all land", async () => {
      const ts = ["a", "b", "c", "d"].map(tenant);
      await Promise.all(ts.flatMap((t) => [port.ensureNamespace(t), port.ensureNamespace(t)]));
      expect(await port.listNamespaces()).toEqual(ts.map((t) => port.namespaceOf(t)).sort());
    });

    test("two tenants are isolated: dropping one leaves the other", async () => {
      const a = tenant("alpha");
      const b = tenant("beta");
      const [na, nb] = [await port.ensureNamespace(a), await port.ensureNamespace(b)];
      expect(na).not.toBe(nb);
      expect(await port.listNamespaces()).toEqual([na, nb].sort());
      await port.dropNamespace(a);
      expect(await port.namespaceExists(a)).toBe(false);
      expect(await port.namespaceExists(b)).toBe(true);
      expect(await port.listNamespaces()).toEqual([nb]);
      await port.smokeTest(b);
      await expect(port.smokeTest(a)).rejects.toThrow();
    });

    test("smoke passes, repeats, runs concurrently and leaves nothing behind", async () => {
      const t = tenant("smoke");
      const ns = await port.ensureNamespace(t);
      await port.smokeTest(t);
      await port.smokeTest(t);
      await Promise.all([port.smokeTest(t), port.smokeTest(t), port.smokeTest(t)]);
      expect(await port.countRecords(t)).toBe(0);
      expect(await port.listNamespaces()).toEqual([ns]);
      expect(await port.namespaceExists(t)).toBe(true);
    });

    test("namespaceExists is false before ensure and after drop; drop is idempotent", async () => {
      const t = tenant("gone");
      expect(await port.namespaceExists(t)).toBe(false);
      await port.dropNamespace(t);
      await port.ensureNamespace(t);
      await port.dropNamespace(t);
      expect(await port.namespaceExists(t)).toBe(false);
      expect(await port.listNamespaces()).toEqual([]);
      await port.dropNamespace(t);
      // Recreating after a drop gives a fresh, empty, working namespace.
      await port.ensureNamespace(t);
      await port.smokeTest(t);
      expect(await port.countRecords(t)).toBe(0);
    });

    test("namespaces survive closing and reopening the store", async () => {
      const t = tenant("durable");
      const ns = await port.ensureNamespace(t);
      await port.close();
      const again = make(dir);
      extra.push(again);
      expect(await again.namespaceExists(t)).toBe(true);
      expect(await again.listNamespaces()).toEqual([ns]);
      await again.smokeTest(t);
    });

    test("a closed adapter refuses work", async () => {
      await port.close();
      await expect(port.ensureNamespace(tenant("late"))).rejects.toThrow();
    });

    test("tenant ids that are not identifiers are refused", async () => {
      await expect(port.ensureNamespace({ tenantId: "../../etc", slug: "x" })).rejects.toThrow();
      expect(await port.listNamespaces()).toEqual([]);
    });
  });
}
