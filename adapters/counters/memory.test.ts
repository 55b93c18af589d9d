import { describe, expect, test } from "bun:test";
import { fuzzSeed, prng } from "../../test/prng.ts";
import { ExpiryHeap } from "./expiry-heap.ts";
import { MemoryCounterStore } from "./memory.ts";

function clocked(maxKeys?: number) {
  const clock = { now: 1_700_000_000_000 };
  const store = new MemoryCounterStore({ maxKeys, now: () => clock.now });
  return { clock, store };
}

describe("MemoryCounterStore bounds", () => {
  test("expired keys are swept, so memory follows the live windows only", async () => {
    const { clock, store } = clocked();
    for (let i = 0; i < 1_000; i++) await store.incr([{ key: `m${i}`, ttlMs: 60_000 }]);
    await store.incr([{ key: "day", ttlMs: 86_400_000 }]);
    expect(store.size).toBe(1_001);
    clock.now += 60_000;
    expect(store.size).toBe(1);
    expect(await store.get("day")).toBe(1);
    expect(store.evictions).toBe(0);
  });

  test("at maxKeys a new key evicts the key closest to expiry, and the eviction is counted", async () => {
    const { clock, store } = clocked(3);
    await store.incr([{ key: "day", ttlMs: 86_400_000 }]);
    await store.incr([{ key: "min-a", ttlMs: 60_000 }]);
    clock.now += 1_000;
    await store.incr([{ key: "min-b", ttlMs: 60_000 }]);
    await store.incr([{ key: "min-b", ttlMs: 60_000 }]);
    expect(store.size).toBe(3);

    await store.incr([{ key: "new", ttlMs: 60_000 }]);
    expect(store.size).toBe(3);
    expect(store.evictions).toBe(1);
    expect(await store.get("min-a")).toBe(0);
    expect(await store.get("day")).toBe(1);
    expect(await store.get("min-b")).toBe(2);
    expect(await store.get("new")).toBe(1);
  });

  test("a full store sweeps expired keys before it evicts a live one", async () => {
    const { clock, store } = clocked(2);
    await store.incr([{ key: "a", ttlMs: 100 }]);
    await store.incr([{ key: "b", ttlMs: 10_000 }]);
    clock.now += 100;
    await store.incr([{ key: "c", ttlMs: 10_000 }]);
    expect(store.evictions).toBe(0);
    expect(await store.get("b")).toBe(1);
  });

  test("updating an existing key at maxKeys evicts nothing", async () => {
    const { store } = clocked(1);
    await store.incr([{ key: "only", ttlMs: 10_000 }]);
    expect(await store.incr([{ key: "only", ttlMs: 10_000 }])).toEqual([2]);
    expect(store.evictions).toBe(0);
  });

  test("a bad maxKeys fails at construction; a closed store refuses work", async () => {
    expect(() => new MemoryCounterStore({ maxKeys: 0 })).toThrow(/maxKeys/);
    const { store } = clocked();
    await store.close();
    await expect(store.incr([{ key: "k", ttlMs: 1_000 }])).rejects.toThrow(/closed/);
  });
});

describe("ExpiryHeap and eviction, seeded fuzz", () => {
  const seed = fuzzSeed("adapters/counters/memory");

  test("the heap pops in expiry order under random pushes and pops", () => {
    const r = prng(seed);
    const heap = new ExpiryHeap();
    const values: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      if (values.length > 0 && r.bool(0.3)) {
        const min = Math.min(...values);
        expect(heap.pop()?.expiresAt).toBe(min);
        values.splice(values.indexOf(min), 1);
      } else {
        const v = r.int(1_000);
        values.push(v);
        heap.push({ key: `k${i}`, expiresAt: v });
      }
    }
    const out: number[] = [];
    for (let e = heap.pop(); e !== undefined; e = heap.pop()) out.push(e.expiresAt);
    expect(out).toEqual([...values].sort((a, b) => a - b));
  });

  test("the store matches a reference model: never above maxKeys, evicting the soonest expiry", async () => {
    const r = prng(seed + 1);
    const maxKeys = 20;
    const { clock, store } = clocked(maxKeys);
    const model = new Map<string, { value: number; expiresAt: number }>();
    for (let step = 0; step < 3_000; step++) {
      clock.now += r.int(50);
      for (const [k, c] of model) if (c.expiresAt <= clock.now) model.delete(k);
      const key = `k${r.int(40)}`;
      // Distinct expiries keep the model's choice of victim unambiguous (ties may go either way).
      let ttlMs = 100 + r.int(5_000);
      while ([...model.values()].some((c) => c.expiresAt === clock.now + ttlMs)) ttlMs++;
      const existing = model.get(key);
      if (existing) existing.value++;
      else {
        if (model.size >= maxKeys) {
          const victim = [...model].reduce((a, b) => (b[1].expiresAt < a[1].expiresAt ? b : a));
          model.delete(victim[0]);
        }
        model.set(key, { value: 1, expiresAt: clock.now + ttlMs });
      }
      const [got] = await store.incr([{ key, ttlMs }]);
      expect(got).toBe(model.get(key)?.value ?? -1);
      expect(store.size).toBe(model.size);
    }
    for (const [k, c] of model) expect(await store.get(k)).toBe(c.value);
  });
});
