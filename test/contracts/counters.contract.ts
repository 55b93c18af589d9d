/** Contract suite for CounterStore: runs unchanged against every adapter. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { CounterStore } from "../../domain/ports.ts";

export interface CounterHarness {
  store: CounterStore;
  /** Lets `ms` pass for the store's expiry clock: a fake clock moves, or the test sleeps. */
  elapse(ms: number): Promise<void>;
  cleanup(): Promise<void>;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

export function runCounterContract(name: string, make: () => Promise<CounterHarness>): void {
  describe(`CounterStore contract: ${name}`, () => {
    let h: CounterHarness;
    let store: CounterStore;

    beforeEach(async () => {
      h = await make();
      store = h.store;
    });
    afterEach(async () => {
      await store.close();
      await h.cleanup();
    });

    test("a new key starts at 1 and counts up; a missing key reads 0", async () => {
      expect(await store.get("c1")).toBe(0);
      expect(await store.incr([{ key: "c1", ttlMs: 60_000 }])).toEqual([1]);
      expect(await store.incr([{ key: "c1", ttlMs: 60_000 }])).toEqual([2]);
      expect(await store.get("c1")).toBe(2);
      await store.ping();
    });

    test("several keys in one call come back in call order", async () => {
      await store.incr([{ key: "a", ttlMs: 60_000 }]);
      await store.incr([{ key: "a", ttlMs: 60_000 }]);
      const got = await store.incr([
        { key: "b", ttlMs: 60_000 },
        { key: "a", ttlMs: 60_000 },
        { key: "c", ttlMs: 60_000 },
      ]);
      expect(got).toEqual([1, 3, 1]);
      expect(await store.incr([])).toEqual([]);
    });

    test("a key expires after its ttl and then starts again at 1", async () => {
      await store.incr([{ key: "e", ttlMs: 300 }]);
      await store.incr([{ key: "e", ttlMs: 300 }]);
      await h.elapse(350);
      expect(await store.get("e")).toBe(0);
      expect(await store.incr([{ key: "e", ttlMs: 300 }])).toEqual([1]);
    });

    test("the expiry is fixed when the key is created; later increments do not extend it", async () => {
      await store.incr([{ key: "w", ttlMs: 300 }]);
      await h.elapse(180);
      expect(await store.incr([{ key: "w", ttlMs: 300 }])).toEqual([2]);
      await h.elapse(180);
      expect(await store.get("w")).toBe(0);
    });

    test("keys in one call expire independently", async () => {
      await store.incr([
        { key: "short", ttlMs: 200 },
        { key: "long", ttlMs: 60_000 },
      ]);
      await h.elapse(300);
      expect(await store.get("short")).toBe(0);
      expect(await store.get("long")).toBe(1);
    });

    test("N parallel increments of one key return exactly 1..N", async () => {
      const n = 100;
      const got = await Promise.all(range(n).map(() => store.incr([{ key: "p", ttlMs: 60_000 }])));
      expect(got.map(([v]) => v ?? 0).sort((x, y) => x - y)).toEqual(range(n));
      expect(await store.get("p")).toBe(n);
    });

    test("a multi-key call is atomic: parallel batches never interleave", async () => {
      const n = 50;
      const batch = [
        { key: "x", ttlMs: 60_000 },
        { key: "y", ttlMs: 60_000 },
      ];
      const got = await Promise.all(range(n).map(() => store.incr(batch)));
      for (const [x, y] of got) expect(x).toBe(y ?? -1);
      expect(got.map(([x]) => x ?? 0).sort((a, b) => a - b)).toEqual(range(n));
    });

    test("a ttl that is not positive is refused", async () => {
      await expect(store.incr([{ key: "bad", ttlMs: 0 }])).rejects.toThrow(/ttlMs/);
      await expect(store.incr([{ key: "bad", ttlMs: Number.NaN }])).rejects.toThrow(/ttlMs/);
      expect(await store.get("bad")).toBe(0);
    });
  });
}
