import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlControlPlaneStore } from "../../adapters/controlplane/index.ts";
import { PostgresClient, SqliteClient } from "../../adapters/sql/index.ts";
import { AppError } from "../../domain/errors.ts";
import type { ControlPlaneStore, UsageIncrement, UsageWriteResult } from "../../domain/ports.ts";
import { engineUrl, freshPostgresDatabase, uniqueName } from "../../test/engines.ts";
import { type UsageEvent, UsageRecorder, type UsageStore } from "./usage.ts";

const MAR_15 = new Date("2024-03-15T12:00:00Z");
const MAR_14 = new Date("2024-03-14T23:59:59Z");
const FEB_28 = new Date("2024-02-28T08:00:00Z");

/**
 * Delegates to the real store; addUsage can be made to fail, to wait on a gate, or to fail
 * every batch that holds a "poisoned" user's row (a row the store refuses, whatever the cause).
 */
class FlakyStore implements UsageStore {
  failures = 0;
  gate: Promise<void> | undefined;
  readonly poisoned = new Set<number>();
  calls = 0;
  constructor(private readonly inner: ControlPlaneStore) {}
  async addUsage(increments: UsageIncrement[]): Promise<UsageWriteResult> {
    this.calls += 1;
    if (this.gate) await this.gate;
    if (this.failures > 0) {
      this.failures--;
      throw new Error("store unavailable");
    }
    if (increments.some((e) => this.poisoned.has(e.userId))) throw new Error("row refused");
    return this.inner.addUsage(increments);
  }
  getUsage(userId: number, day: string) {
    return this.inner.getUsage(userId, day);
  }
}

function runUsageSuite(name: string, make: () => Promise<{ store: ControlPlaneStore; cleanup: () => Promise<void> }>) {
  describe(`UsageRecorder on ${name}`, () => {
    let store: ControlPlaneStore;
    let cleanup: () => Promise<void>;
    let tenantId: string;

    beforeAll(async () => {
      ({ store, cleanup } = await make());
      await store.migrate();
      const t = await store.createTenant({ slug: uniqueName("t"), display_name: "T", tier: "pilot", region: "us" });
      tenantId = t.tenant_id;
    });
    afterAll(async () => {
      await store.close();
      await cleanup();
    });

    const newUser = async () =>
      (
        await store.createUser({
          tenant_id: tenantId,
          email: `${uniqueName("u")}@example.com`,
          name: "U",
          tier: "free",
        })
      ).id;

    test("usage is persisted plus pending, before and after a flush, by day and month", async () => {
      const u = await newUser();
      const rec = new UsageRecorder(store, { flushMs: 60_000 });
      rec.record(u, MAR_15);
      rec.record(u, MAR_15);
      rec.record(u, MAR_14);
      rec.record(u, FEB_28);
      expect(rec.pendingEntries).toBe(3);
      expect(await rec.usage(u, MAR_15)).toEqual({ today: 2, this_month: 3 });
      expect(await store.getUsage(u, "2024-03-15")).toEqual({ today: 0, this_month: 0 });

      await rec.flush();
      expect(rec.pendingEntries).toBe(0);
      expect(await store.getUsage(u, "2024-03-15")).toEqual({ today: 2, this_month: 3 });
      rec.record(u, MAR_15);
      expect(await rec.usage(u, MAR_15)).toEqual({ today: 3, this_month: 4 });
      expect(await rec.usage(u, FEB_28)).toEqual({ today: 1, this_month: 1 });
      await rec.close();
      expect(await store.getUsage(u, "2024-03-15")).toEqual({ today: 3, this_month: 4 });
    });

    test("persisted totals are reused for flushMs; another instance's flush shows after that", async () => {
      const u = await newUser();
      let clock = MAR_15.getTime();
      const a = new UsageRecorder(store, { flushMs: 1_000, now: () => clock });
      const b = new UsageRecorder(store, { flushMs: 1_000, now: () => clock });
      a.record(u);
      await a.flush();
      expect(await a.usage(u)).toEqual({ today: 1, this_month: 1 });
      a.record(u);
      await a.flush(); // its own flush keeps the cached total exact
      expect(await a.usage(u)).toEqual({ today: 2, this_month: 2 });
      b.record(u);
      b.record(u);
      await b.flush();
      expect(await a.usage(u)).toEqual({ today: 2, this_month: 2 }); // cached, within flushMs
      clock += 1_000;
      expect(await a.usage(u)).toEqual({ today: 4, this_month: 4 });
      await a.close();
      await b.close();
    });

    test("cached reads stay exact with many users pending, and while a flush is under way", async () => {
      const [u, v] = [await newUser(), await newUser()];
      let clock = MAR_15.getTime();
      const gated = new FlakyStore(store);
      const rec = new UsageRecorder(gated, { flushMs: 60_000, now: () => clock });
      expect(await rec.usage(u)).toEqual({ today: 0, this_month: 0 }); // totals now cached
      // Many other users pending: u's counts are found by key, never mixed with theirs.
      for (let i = 0; i < 500; i++) rec.record(100_000_000 + i);
      rec.record(u);
      rec.record(u, MAR_14);
      rec.record(v);
      expect(await rec.usage(u)).toEqual({ today: 1, this_month: 2 });
      // A flush held mid-write: a read asked meanwhile must not answer from the cache (the
      // batch is neither pending nor committed); it waits for the flush and then counts the
      // batch exactly once, plus what was recorded while it waited.
      const { promise: release, resolve } = Promise.withResolvers<void>();
      gated.gate = release;
      const flushing = rec.flush().catch(() => {});
      const during = rec.usage(u);
      rec.record(u);
      resolve();
      await flushing;
      expect(await during).toEqual({ today: 2, this_month: 3 });
      expect(await rec.usage(u)).toEqual({ today: 2, this_month: 3 });
      clock += 60_000;
      expect(await rec.usage(u)).toEqual({ today: 2, this_month: 3 });
      await rec.close();
    });

    test("the timer flushes every flushMs without being asked", async () => {
      const u = await newUser();
      const rec = new UsageRecorder(store, { flushMs: 10 });
      rec.record(u, MAR_15);
      rec.record(u, MAR_15);
      for (let i = 0; i < 100 && rec.pendingEntries > 0; i++) await Bun.sleep(5);
      expect(rec.pendingEntries).toBe(0);
      expect((await store.getUsage(u, "2024-03-15")).today).toBe(2);
      await rec.close();
    });

    test("a full buffer flushes at once, without waiting for the timer", async () => {
      const users = [await newUser(), await newUser(), await newUser()];
      const rec = new UsageRecorder(store, { flushMs: 60_000, maxPending: 3 });
      for (const u of users) rec.record(u, MAR_15);
      // usage() queues behind the flush the third record started.
      expect(await rec.usage(users[0] ?? 0, MAR_15)).toEqual({ today: 1, this_month: 1 });
      expect(rec.pendingEntries).toBe(0);
      for (const u of users) expect((await store.getUsage(u, "2024-03-15")).today).toBe(1);
      await rec.close();
    });

    test("a failed flush keeps its counts for the next try and reports it", async () => {
      const u = await newUser();
      const flaky = new FlakyStore(store);
      const events: UsageEvent[] = [];
      const rec = new UsageRecorder(flaky, { flushMs: 60_000, onEvent: (e) => events.push(e) });
      rec.record(u, MAR_15);
      rec.record(u, MAR_15);
      rec.record(u, MAR_15);
      flaky.failures = 1;
      await expect(rec.flush()).rejects.toThrow("store unavailable");
      expect(events.map((e) => e.type)).toEqual(["flush_failed"]);
      expect(rec.pendingEntries).toBe(1);
      expect(await rec.usage(u, MAR_15)).toEqual({ today: 3, this_month: 3 });
      rec.record(u, MAR_15);
      await rec.flush();
      expect(await store.getUsage(u, "2024-03-15")).toEqual({ today: 4, this_month: 4 });
      expect(await rec.usage(u, MAR_15)).toEqual({ today: 4, this_month: 4 });
      await rec.close();
    });

    test("a read during a flush counts the batch exactly once", async () => {
      const u = await newUser();
      const flaky = new FlakyStore(store);
      let open = () => {};
      flaky.gate = new Promise<void>((r) => {
        open = r;
      });
      const rec = new UsageRecorder(flaky, { flushMs: 60_000 });
      rec.record(u, MAR_15);
      rec.record(u, MAR_15);
      const flushing = rec.flush();
      await Bun.sleep(1);
      rec.record(u, MAR_15); // arrives while the batch is in flight
      const reading = rec.usage(u, MAR_15);
      open();
      await flushing;
      expect(await reading).toEqual({ today: 3, this_month: 3 });
      expect((await store.getUsage(u, "2024-03-15")).today).toBe(2);
      await rec.close();
      expect((await store.getUsage(u, "2024-03-15")).today).toBe(3);
    });

    test("while the store is down the buffer stays bounded and drops are counted, never silent", async () => {
      const users = await Promise.all([1, 2, 3, 4, 5].map(() => newUser()));
      const flaky = new FlakyStore(store);
      flaky.failures = 1_000;
      const events: UsageEvent[] = [];
      const rec = new UsageRecorder(flaky, { flushMs: 60_000, maxPending: 2, onEvent: (e) => events.push(e) });
      for (const u of users) rec.record(u, MAR_15);
      // Cap is 2 * maxPending entries: the fifth user's request is dropped, loudly.
      expect(rec.dropped).toBe(1);
      expect(events).toContainEqual({ type: "dropped", userId: users[4] ?? 0, day: "2024-03-15", totalDropped: 1 });
      await expect(rec.flush()).rejects.toThrow("store unavailable");
      expect(rec.pendingEntries).toBe(4);
      // Existing entries still count while full.
      rec.record(users[0] ?? 0, MAR_15);
      flaky.failures = 0;
      await rec.close();
      expect((await store.getUsage(users[0] ?? 0, "2024-03-15")).today).toBe(2);
      expect((await store.getUsage(users[3] ?? 0, "2024-03-15")).today).toBe(1);
      expect((await store.getUsage(users[4] ?? 0, "2024-03-15")).today).toBe(0);
    });

    test("a deleted user's counts are orphaned once, and the other users' counts and quota persist", async () => {
      const [a, gone, c] = [await newUser(), await newUser(), await newUser()];
      const events: UsageEvent[] = [];
      const rec = new UsageRecorder(store, { flushMs: 60_000, onEvent: (e) => events.push(e) });
      rec.record(a, MAR_15);
      await rec.flush();
      rec.record(a, MAR_15);
      rec.record(gone, MAR_15);
      rec.record(gone, MAR_15);
      rec.record(c, MAR_15);
      await store.sql.run("DELETE FROM users WHERE id = ?", [gone]);
      await rec.flush(); // resolves: the orphaned row does not fail the batch
      expect(events).toEqual([{ type: "orphaned", userId: gone, day: "2024-03-15", count: 2 }]);
      expect(rec.orphaned).toBe(2);
      expect(rec.pendingEntries).toBe(0);
      expect(await store.getUsage(a, "2024-03-15")).toEqual({ today: 2, this_month: 2 });
      expect(await store.getUsage(c, "2024-03-15")).toEqual({ today: 1, this_month: 1 });
      // Later flushes go on counting (the daily quota is not reset) and never retry the orphan.
      rec.record(a, MAR_15);
      await rec.flush();
      expect(await rec.usage(a, MAR_15)).toEqual({ today: 3, this_month: 3 });
      expect(await store.getUsage(a, "2024-03-15")).toEqual({ today: 3, this_month: 3 });
      expect(events).toHaveLength(1);
      await rec.close();
    });

    test("a row the store refuses is isolated: the rest of its batch is written, it is retried", async () => {
      const users = [await newUser(), await newUser(), await newUser(), await newUser()];
      const bad = users[1] ?? 0;
      const flaky = new FlakyStore(store);
      flaky.poisoned.add(bad);
      const events: UsageEvent[] = [];
      const rec = new UsageRecorder(flaky, { flushMs: 60_000, onEvent: (e) => events.push(e) });
      for (const u of users) rec.record(u, MAR_15);
      await expect(rec.flush()).rejects.toThrow("row refused");
      expect(events).toMatchObject([{ type: "flush_failed", entries: 1 }]);
      expect(rec.pendingEntries).toBe(1);
      for (const u of users) expect((await store.getUsage(u, "2024-03-15")).today).toBe(u === bad ? 0 : 1);
      expect(await rec.usage(bad, MAR_15)).toEqual({ today: 1, this_month: 1 });
      flaky.poisoned.clear();
      rec.record(bad, MAR_15);
      await rec.close();
      for (const u of users) expect((await store.getUsage(u, "2024-03-15")).today).toBe(u === bad ? 2 : 1);
    });

    test("while the store is down a failed batch gives up after a few single rows", async () => {
      const users = await Promise.all(Array.from({ length: 20 }, () => newUser()));
      const flaky = new FlakyStore(store);
      const rec = new UsageRecorder(flaky, { flushMs: 60_000 });
      for (const u of users) rec.record(u, MAR_15);
      flaky.failures = 1_000;
      await expect(rec.flush()).rejects.toThrow("store unavailable");
      expect(flaky.calls).toBe(4); // the batch, then three single rows
      expect(rec.pendingEntries).toBe(20);
      flaky.failures = 0;
      await rec.close();
      for (const u of users) expect((await store.getUsage(u, "2024-03-15")).today).toBe(1);
    });

    test("a transient failure is retried by the timer with nothing new recorded", async () => {
      const u = await newUser();
      const flaky = new FlakyStore(store);
      const events: UsageEvent[] = [];
      const rec = new UsageRecorder(flaky, { flushMs: 10, onEvent: (e) => events.push(e) });
      flaky.failures = 2;
      rec.record(u, MAR_15);
      rec.record(u, MAR_15);
      for (let i = 0; i < 400 && rec.pendingEntries > 0; i++) await Bun.sleep(5);
      expect(events.map((e) => e.type)).toEqual(["flush_failed", "flush_failed"]);
      expect(rec.pendingEntries).toBe(0);
      expect(await store.getUsage(u, "2024-03-15")).toEqual({ today: 2, this_month: 2 });
      await rec.close();
    });

    test("close flushes, is idempotent, and refuses later records", async () => {
      const u = await newUser();
      const rec = new UsageRecorder(store, { flushMs: 60_000 });
      rec.record(u, MAR_15);
      await Promise.all([rec.close(), rec.close()]);
      expect((await store.getUsage(u, "2024-03-15")).today).toBe(1);
      expect(() => rec.record(u, MAR_15)).toThrow(AppError);
      expect(() => new UsageRecorder(store, { flushMs: 0 })).toThrow(/flushMs/);
    });
  });
}

runUsageSuite("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-usage-"));
  return {
    store: new SqlControlPlaneStore(new SqliteClient(join(dir, "cp.sqlite"))),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

const pg = engineUrl("postgres");
if (pg) {
  runUsageSuite("postgres", async () => {
    const db = await freshPostgresDatabase(pg);
    return { store: new SqlControlPlaneStore(new PostgresClient(db.url)), cleanup: db.drop };
  });
}
