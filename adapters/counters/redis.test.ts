import { afterAll, describe, expect, test } from "bun:test";
import { Redis } from "ioredis";
import { engineUrl, uniqueName } from "../../test/engines.ts";
import { deleteRedisPrefix } from "../../test/redis.ts";
import { RedisCounterStore } from "./redis.ts";

const url = engineUrl("redis");

describe.skipIf(!url)("RedisCounterStore", () => {
  const redisUrl = url ?? "";
  const prefixes: string[] = [];
  const freshPrefix = () => {
    const p = `${uniqueName("cairn_t")}:`;
    prefixes.push(p);
    return p;
  };
  afterAll(async () => {
    for (const p of prefixes) await deleteRedisPrefix(redisUrl, p);
  });

  test("two store instances sharing Redis see one count", async () => {
    const prefix = freshPrefix();
    const a = new RedisCounterStore({ url: redisUrl, prefix });
    const b = new RedisCounterStore({ url: redisUrl, prefix });
    try {
      const calls = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).incr([{ key: "k", ttlMs: 60_000 }]));
      const got = (await Promise.all(calls)).map(([v]) => v ?? 0).sort((x, y) => x - y);
      expect(got).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await a.get("k")).toBe(40);
      expect(await b.get("k")).toBe(40);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("keys live under the prefix, with the ttl set once; other prefixes do not collide", async () => {
    const p1 = freshPrefix();
    const p2 = freshPrefix();
    const admin = new Redis(redisUrl);
    const s1 = new RedisCounterStore({ client: admin, prefix: p1 });
    const s2 = new RedisCounterStore({ client: admin, prefix: p2 });
    try {
      await s1.incr([{ key: "k", ttlMs: 60_000 }]);
      await s1.incr([{ key: "k", ttlMs: 60_000 }]);
      await s2.incr([{ key: "k", ttlMs: 60_000 }]);
      expect(await admin.get(`${p1}k`)).toBe("2");
      expect(await admin.get(`${p2}k`)).toBe("1");
      const ttl = await admin.pttl(`${p1}k`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      // A caller-owned client stays open after close().
      await s1.close();
      expect(await admin.ping()).toBe("PONG");
    } finally {
      await s2.close();
      await admin.quit();
    }
  });
});
