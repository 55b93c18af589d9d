import { describe, expect, test } from "bun:test";
import {
  CLOCK_SKEW_SLACK_MS,
  decideDay,
  decideMinute,
  effectiveLimits,
  planRateLimit,
  secondsUntil,
  utcDay,
} from "./rate-limit.ts";
import { TIER_LIMITS } from "./tiers.ts";

const FREE = effectiveLimits(TIER_LIMITS.free);
const at = (iso: string) => Date.parse(iso);

describe("effectiveLimits", () => {
  test("scale 1 is the tier table of spec 8.1", () => {
    expect(FREE).toEqual({ perMinute: 5, perDay: 1_000 });
    expect(effectiveLimits(TIER_LIMITS.enterprise)).toEqual({ perMinute: 500, perDay: 100_000 });
  });

  test("the scale multiplies, rounds down, never below 1, without float drift", () => {
    expect(effectiveLimits(TIER_LIMITS.free, 2)).toEqual({ perMinute: 10, perDay: 2_000 });
    expect(effectiveLimits(TIER_LIMITS.free, 0.5)).toEqual({ perMinute: 2, perDay: 500 });
    expect(effectiveLimits(TIER_LIMITS.free, 0.001)).toEqual({ perMinute: 1, perDay: 1 });
    expect(effectiveLimits({ req_per_min: 100, req_per_day: 100 }, 0.29)).toEqual({ perMinute: 29, perDay: 29 });
  });

  test("a scale that is not positive is refused", () => {
    expect(() => effectiveLimits(TIER_LIMITS.free, 0)).toThrow(/scale/);
    expect(() => effectiveLimits(TIER_LIMITS.free, Number.NaN)).toThrow(/scale/);
  });
});

describe("planRateLimit", () => {
  test("window keys, resets and TTLs for one instant", () => {
    const now = at("2024-03-15T13:45:30.250Z");
    const p = planRateLimit(42, FREE, now);
    expect(p.minute.key).toBe(`rl:42:m:${Math.floor(now / 60_000)}`);
    expect(p.minute.resetAtMs).toBe(at("2024-03-15T13:46:00Z"));
    expect(p.minute.ttlMs).toBe(29_750 + CLOCK_SKEW_SLACK_MS);
    expect(p.minute.limit).toBe(5);
    expect(p.day.key).toBe("rl:42:d:2024-03-15");
    expect(p.day.resetAtMs).toBe(at("2024-03-16T00:00:00Z"));
    expect(p.day.ttlMs).toBe(at("2024-03-16T00:00:00Z") - now + CLOCK_SKEW_SLACK_MS);
    expect(p.day.limit).toBe(1_000);
  });

  test("a minute boundary changes the minute window but not the day window", () => {
    const before = planRateLimit(7, FREE, at("2024-03-15T13:45:59.999Z"));
    const after = planRateLimit(7, FREE, at("2024-03-15T13:46:00.000Z"));
    expect(after.minute.key).not.toBe(before.minute.key);
    expect(after.day.key).toBe(before.day.key);
    expect(secondsUntil(before.minute.resetAtMs, before.nowMs)).toBe(1);
    expect(secondsUntil(after.minute.resetAtMs, after.nowMs)).toBe(60);
  });

  test("the day rolls over at UTC midnight, including a leap day", () => {
    const before = planRateLimit(7, FREE, at("2024-02-29T23:59:59.999Z"));
    const after = planRateLimit(7, FREE, at("2024-03-01T00:00:00.000Z"));
    expect(before.day.key).toBe("rl:7:d:2024-02-29");
    expect(after.day.key).toBe("rl:7:d:2024-03-01");
    expect(before.day.resetAtMs).toBe(after.nowMs);
    expect(after.day.resetAtMs).toBe(at("2024-03-02T00:00:00Z"));
    expect(utcDay(at("2024-12-31T23:59:59.999Z"))).toBe("2024-12-31");
  });
});

describe("decisions", () => {
  const now = at("2024-03-15T13:45:30.250Z");
  const plan = planRateLimit(1, FREE, now);
  const toMinuteEnd = "30"; // 29.75 s, rounded up
  const toMidnight = String(Math.ceil((at("2024-03-16T00:00:00Z") - now) / 1000));

  test("exactly at the minute limit goes on to the day window; one over is refused", () => {
    expect(decideMinute(plan, 5)).toBeNull();
    const refused = decideMinute(plan, 6);
    expect(refused).toEqual({
      allowed: false,
      exceeded: "minute",
      headers: {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": toMinuteEnd,
        "Retry-After": toMinuteEnd,
      },
    });
  });

  test("exactly at the day limit is allowed; one over is refused until UTC midnight", () => {
    const ok = decideDay(plan, 1, 1_000);
    expect(ok.allowed).toBe(true);
    expect(ok.headers).toEqual({
      "X-RateLimit-Limit": "1000",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": toMidnight,
    });
    expect(decideDay(plan, 1, 1_001)).toEqual({
      allowed: false,
      exceeded: "day",
      headers: {
        "X-RateLimit-Limit": "1000",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": toMidnight,
        "Retry-After": toMidnight,
      },
    });
  });

  test("headers describe the window that will refuse first", () => {
    expect(decideDay(plan, 2, 10).headers).toEqual({
      "X-RateLimit-Limit": "5",
      "X-RateLimit-Remaining": "3",
      "X-RateLimit-Reset": toMinuteEnd,
    });
    expect(decideDay(plan, 1, 998).headers["X-RateLimit-Limit"]).toBe("1000");
    expect(decideDay(plan, 1, 998).headers["X-RateLimit-Remaining"]).toBe("2");
    // Both exhausted: the minute window is checked first, so it is the one reported.
    expect(decideDay(plan, 5, 1_000).headers["X-RateLimit-Limit"]).toBe("5");
    expect(decideDay(plan, 2, 10).headers["Retry-After"]).toBeUndefined();
  });

  test("Retry-After is a whole number of seconds, at least 1", () => {
    const late = planRateLimit(1, FREE, at("2024-03-15T13:45:59.999Z"));
    expect(decideMinute(late, 6)?.headers["Retry-After"]).toBe("1");
    expect(secondsUntil(1_000, 1_000)).toBe(1);
  });

  test("a scaled plan refuses at the scaled limit", () => {
    const scaled = planRateLimit(1, effectiveLimits(TIER_LIMITS.free, 3), now);
    expect(decideMinute(scaled, 15)).toBeNull();
    expect(decideMinute(scaled, 16)?.headers["X-RateLimit-Limit"]).toBe("15");
  });
});
