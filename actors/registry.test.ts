import { describe, expect, test } from "bun:test";
import { AppError } from "../domain/errors.ts";
import { waitFor } from "../test/wait.ts";
import { Registry, type RegistryErrorEvent, type RegistryOptions, type UnloadReason } from "./registry.ts";

interface Val {
  key: string;
  id: number;
  busy: boolean;
}

function harness(over: Partial<RegistryOptions<string, Val>> = {}) {
  let nextId = 0;
  const created: Val[] = [];
  const destroyed: { id: number; reason: UnloadReason }[] = [];
  const errors: RegistryErrorEvent<string>[] = [];
  let clock = 0;
  const reg = new Registry<string, Val>({
    name: "test",
    create: async (key) => {
      await Bun.sleep(1);
      const v = { key, id: ++nextId, busy: false };
      created.push(v);
      return v;
    },
    destroy: async (_key, v, reason) => {
      destroyed.push({ id: v.id, reason });
    },
    isIdle: (v) => !v.busy,
    now: () => clock,
    idleMs: 1_000,
    onError: (e) => errors.push(e),
    ...over,
  });
  return {
    reg,
    created,
    destroyed,
    errors,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe("Registry", () => {
  test("concurrent gets for one key create it once", async () => {
    const { reg, created } = harness();
    const got = await Promise.all(Array.from({ length: 50 }, () => reg.get("a")));
    expect(created).toHaveLength(1);
    expect(new Set(got).size).toBe(1);
    expect(reg.peek("a")).toBe(got[0]);
    await reg.close();
  });

  test("a failed creation is not cached", async () => {
    let calls = 0;
    const { reg } = harness({
      create: async (key) => {
        calls++;
        await Bun.sleep(1);
        if (calls === 1) throw new Error("db down");
        return { key, id: calls, busy: false };
      },
    });
    const first = await Promise.allSettled([reg.get("a"), reg.get("a"), reg.get("a")]);
    expect(first.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(calls).toBe(1);
    expect(reg.has("a")).toBe(false);
    expect((await reg.get("a")).id).toBe(2);
    await reg.close();
  });

  test("idle unload (sweep): only entries unused for idleMs and idle by isIdle", async () => {
    const { reg, destroyed, advance } = harness();
    const a = await reg.get("a");
    await reg.get("b");
    advance(600);
    await reg.get("b"); // use resets b's idle time
    advance(600);
    a.busy = true;
    expect(await reg.unloadIdle()).toBe(0); // a is busy, b was used 600 ms ago
    a.busy = false;
    expect(await reg.unloadIdle()).toBe(1);
    expect(destroyed).toEqual([{ id: a.id, reason: "idle" }]);
    expect(reg.keys()).toEqual(["b"]);
    await reg.close();
  });

  // Real timers, fake clock: whenever a timer fires, idleness is judged on the fake clock,
  // so the outcome does not depend on how fast the machine is.
  test("idle unload (timers): use keeps an entry alive; it goes once unused", async () => {
    const h = harness({ idleMs: 20 });
    const v = await h.reg.get("a");
    for (let i = 0; i < 8; i++) {
      h.advance(15);
      await h.reg.get("a"); // same tick as the advance: no timer sees 15 ms of idleness
      await Bun.sleep(8);
    }
    expect(h.destroyed).toEqual([]);
    h.advance(20);
    await waitFor("the idle timer to unload a", () => h.destroyed.length === 1);
    expect(h.destroyed).toEqual([{ id: v.id, reason: "idle" }]);
    expect(h.reg.has("a")).toBe(false);
    await h.reg.close();
  });

  test("idle unload (timers): a busy value is re-checked later rather than dropped or forgotten", async () => {
    const h = harness({ idleMs: 10 });
    const v = await h.reg.get("a");
    v.busy = true;
    h.advance(1_000);
    await Bun.sleep(50);
    expect(h.destroyed).toEqual([]);
    v.busy = false;
    await waitFor("the idle timer to unload a", () => h.destroyed.length === 1);
    expect(h.destroyed).toEqual([{ id: v.id, reason: "idle" }]);
    await h.reg.close();
  });

  test("unload re-checks after beforeUnload: a get during the await keeps the value", async () => {
    const gate = Promise.withResolvers<void>();
    let calls = 0;
    const h = harness({
      beforeUnload: async () => {
        calls++;
        await gate.promise;
      },
    });
    const v = await h.reg.get("a");
    h.advance(2_000);
    const sweeping = h.reg.unloadIdle();
    const again = h.reg.unloadIdle(); // joins the attempt in progress
    expect(await h.reg.get("a")).toBe(v); // used while beforeUnload is pending
    gate.resolve();
    expect(await sweeping).toBe(0);
    expect(await again).toBe(0);
    expect(calls).toBe(1);
    expect(h.destroyed).toEqual([]);
    expect(h.reg.peek("a")).toBe(v);
    await h.reg.close();
  });

  test("explicit unload: idempotent, and the key is re-created only after the old value is destroyed", async () => {
    const order: string[] = [];
    const destroyGate = Promise.withResolvers<void>();
    const h = harness({
      create: async (key) => {
        order.push(`create ${key}`);
        return { key, id: order.length, busy: true };
      },
      destroy: async (key) => {
        order.push(`destroy ${key} start`);
        await destroyGate.promise;
        order.push(`destroy ${key} end`);
      },
    });
    const old = await h.reg.get("a");
    const u1 = h.reg.unload("a");
    const u2 = h.reg.unload("a");
    expect(h.reg.has("a")).toBe(false); // detached at once, busy or not
    const fresh = h.reg.get("a");
    await Bun.sleep(5);
    expect(order).toEqual(["create a", "destroy a start"]);
    destroyGate.resolve();
    expect(await u1).toBe(true);
    expect(await u2).toBe(false);
    expect(await fresh).not.toBe(old);
    expect(order).toEqual(["create a", "destroy a start", "destroy a end", "create a"]);
    await h.reg.close();
  });

  test("explicit unload while creating: waiters get the value, it is destroyed, the next get is fresh", async () => {
    const h = harness();
    const early = h.reg.get("a");
    const unloading = h.reg.unload("a");
    const late = h.reg.get("a");
    const e = await early;
    expect(await unloading).toBe(true);
    expect(h.destroyed).toEqual([{ id: e.id, reason: "explicit" }]);
    const l = await late;
    expect(l.id).not.toBe(e.id);
    expect(h.reg.peek("a")).toBe(l);
    await h.reg.close();
  });

  test("size bound evicts the least recently used idle entry, refuses when all are busy", async () => {
    const h = harness({ maxSize: 2 });
    const a = await h.reg.get("a");
    const b = await h.reg.get("b");
    await h.reg.get("a"); // b is now least recently used
    await h.reg.get("c");
    await Bun.sleep(1);
    expect(h.destroyed).toEqual([{ id: b.id, reason: "evicted" }]);
    expect(h.reg.keys().sort()).toEqual(["a", "c"]);
    a.busy = true;
    const c = h.reg.peek("c");
    if (c) c.busy = true;
    const refused = await h.reg.get("d").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("unavailable");
    expect(h.reg.size).toBe(2);
    await h.reg.close();
  });

  test("close unloads everything (even loading entries), refuses later gets, is idempotent", async () => {
    const h = harness();
    await h.reg.get("a");
    const loading = h.reg.get("b");
    const c1 = h.reg.close();
    const c2 = h.reg.close();
    expect(c1).toBe(c2);
    await c1;
    await loading;
    expect(h.destroyed.map((d) => d.reason)).toEqual(["close", "close"]);
    expect(h.created).toHaveLength(2);
    expect(h.reg.size).toBe(0);
    await expect(h.reg.get("a")).rejects.toBeInstanceOf(AppError);
  });

  test("destroy errors are reported, not swallowed, and do not block the key", async () => {
    const h = harness({
      destroy: async () => {
        throw new Error("flush failed");
      },
    });
    await h.reg.get("a");
    expect(await h.reg.unload("a")).toBe(true);
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0]).toMatchObject({ phase: "destroy", key: "a", reason: "explicit" });
    expect((await h.reg.get("a")).id).toBe(2);
    await h.reg.close();
  });

  test("rejects bad options by name", () => {
    expect(() => harness({ idleMs: -1 })).toThrow(/idleMs/);
    expect(() => harness({ maxSize: 0 })).toThrow(/maxSize/);
  });
});
