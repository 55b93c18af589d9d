import { describe, expect, test } from "bun:test";
import { ResponseCache } from "./cache.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

describe("financial response cache", () => {
  test("hits until the store's generation moves or the TTL passes", () => {
    let gen = 0;
    let now = 1_000;
    const c = new ResponseCache({ generation: () => gen, now: () => now, ttlMs: 100 });
    c.set("a", enc("[1]"), c.currentGeneration());
    expect(dec(c.get("a"))).toBe("[1]");
    gen++;
    expect(c.get("a")).toBeNull();
    c.set("a", enc("[2]"), c.currentGeneration());
    now += 101;
    expect(c.get("a")).toBeNull();
    expect(c.size).toBe(0);
  });

  test("a body read across a write (generation captured before it) is not kept", () => {
    let gen = 3;
    const c = new ResponseCache({ generation: () => gen });
    const captured = c.currentGeneration();
    gen++; // an ingest committed while the read was in flight
    c.set("a", enc("[stale]"), captured);
    expect(c.get("a")).toBeNull();
  });

  test("bounded by entries and bytes, least recently used first", () => {
    const c = new ResponseCache({ maxEntries: 2, maxBytes: 10 });
    c.set("a", enc("aaaa"), 0);
    c.set("b", enc("bbbb"), 0);
    expect(dec(c.get("a"))).toBe("aaaa"); // a is now the most recent
    c.set("c", enc("cccc"), 0);
    expect(c.get("b")).toBeNull();
    expect(dec(c.get("a"))).toBe("aaaa");
    c.set("d", enc("dddddddd"), 0); // 4 + 8 bytes > 10: a and c go
    expect(c.size).toBe(1);
    expect(dec(c.get("d"))).toBe("dddddddd");
    c.set("huge", enc("x".repeat(11)), 0);
    expect(c.get("huge")).toBeNull();
  });
});
