import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { MemoryCounterStore, RedisCounterStore } from "../../adapters/counters/index.ts";
import type { CounterStore } from "../../domain/ports.ts";
import { planRateLimit } from "../../domain/user/rate-limit.ts";
import { engineUrl, uniqueName } from "../../test/engines.ts";
import { deleteRedisPrefix } from "../../test/redis.ts";
import { RateLimiter, type RateLimiterOptions } from "./rate-limiter.ts";

/** Two counter stores over one backing, as two service instances would hold them. */
interface Backend {
  a: CounterStore;
  b: CounterStore;
  cleanup(): Promise<void>;
}

// Mid-minute, so nothing here straddles a window unless a test moves the clock.
const START = Date.parse("2024-03-15T13:45:20.000Z");

function runRateLimiterSuite(name: string, make: (now: () => number) => Promise<Backend>): void {
  describe(`RateLimiter on ${name}`, () => {
    const clock = { now: START };
    const now = () => clock.now;
    let backend: Backend;
    let account: number;

    beforeEach(async () => {
      clock.now = START;
      backend = await make(now);
      account = Math.floor(Math.random() * 1e9);
    });
    afterEach(async () => {
      await backend.a.close();
      if (backend.b !== backend.a) await backend.b.close();
      await backend.cleanup();
    });

    const limiter = (store: CounterStore, opts: RateLimiterOptions = {}) => new RateLimiter(store, { now, ...opts });

    test("free tier: 5 per minute, the 6th refused with Retry-After", async () => {
      const rl = limiter(backend.a);
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) {
        const d = await rl.check(account, "free");
        expect(d.allowed).toBe(true);
        remaining.push(d.headers["X-RateLimit-Remaining"] ?? "");
      }
      expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
      const refused = await rl.check(account, "free");
      expect(refused.allowed).toBe(false);
      expect(refused).toMatchObject({ exceeded: "minute" });
      expect(refused.headers["Retry-After"]).toBe("40");
      expect(refused.headers["X-RateLimit-Limit"]).toBe("5");
      // A new minute opens a new window.
      clock.now = START + 40_000;
      expect((await rl.check(account, "free")).allowed).toBe(true);
    });

    test("minute refusals do not consume the day quota; the day limit holds until UTC midnight", async () => {
      const rl = limiter(backend.a, { tiers: tiers(3, 5) });
      const results: boolean[] = [];
      for (let i = 0; i < 5; i++) results.push((await rl.check(account, "free")).allowed);
      expect(results).toEqual([true, true, true, false, false]);
      const dayKey = planRateLimit(account, rl.limitsFor("free"), clock.now).day.key;
      expect(await backend.a.get(dayKey)).toBe(3);

      clock.now += 60_000;
      expect((await rl.check(account, "free")).allowed).toBe(true);
      expect((await rl.check(account, "free")).allowed).toBe(true);
      const refused = await rl.check(account, "free");
      expect(refused).toMatchObject({ allowed: false, exceeded: "day" });
      const toMidnight = Math.ceil((Date.parse("2024-03-16T00:00:00Z") - clock.now) / 1000);
      expect(refused.headers["Retry-After"]).toBe(String(toMidnight));

      clock.now = Date.parse("2024-03-16T00:00:00.000Z");
      expect((await rl.check(account, "free")).allowed).toBe(true);
    });

    test("the scale factor multiplies the limits", async () => {
      const rl = limiter(backend.a, { scale: 2 });
      let allowed = 0;
      for (let i = 0; i < 12; i++) if ((await rl.check(account, "free")).allowed) allowed++;
      expect(allowed).toBe(10);
      expect(() => limiter(backend.a, { scale: 0 })).toThrow(/scale/);
    });

    test("accounts and tiers are counted separately", async () => {
      const rl = limiter(backend.a);
      for (let i = 0; i < 5; i++) await rl.check(account, "free");
      expect((await rl.check(account, "free")).allowed).toBe(false);
      expect((await rl.check(account + 1, "free")).allowed).toBe(true);
      const pro = await rl.check(account + 2, "pro");
      expect(pro.headers["X-RateLimit-Limit"]).toBe("60");
    });

    test("two service instances sharing the counters enforce one combined limit", async () => {
      const a = limiter(backend.a);
      const b = limiter(backend.b);
      const calls = [a, a, a, b, b, b].map((rl) => rl.check(account, "free"));
      const decisions = await Promise.all(calls);
      expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
      expect(decisions.filter((d) => !d.allowed && d.exceeded === "minute")).toHaveLength(1);
    });
  });
}

function tiers(perMinute: number, perDay: number): RateLimiterOptions["tiers"] {
  const t = { req_per_min: perMinute, req_per_day: perDay };
  return { free: t, pro: t, enterprise: t };
}

runRateLimiterSuite("memory counters", async (now) => {
  const store = new MemoryCounterStore({ now });
  return { a: store, b: store, cleanup: async () => {} };
});

// The same store seen only through incr(), as a network store is: the awaited path.
runRateLimiterSuite("memory counters without incrNow", async (now) => {
  const inner = new MemoryCounterStore({ now });
  const store: CounterStore = {
    incr: (keys) => inner.incr(keys),
    get: (key) => inner.get(key),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { a: store, b: store, cleanup: async () => {} };
});

const redisUrl = engineUrl("redis");
if (redisUrl) {
  runRateLimiterSuite("redis counters", async () => {
    const prefix = `${uniqueName("cairn_t")}:`;
    return {
      a: new RedisCounterStore({ url: redisUrl, prefix }),
      b: new RedisCounterStore({ url: redisUrl, prefix }),
      cleanup: () => deleteRedisPrefix(redisUrl, prefix),
    };
  });
}
