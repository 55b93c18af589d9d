/**
 * Tier rate limits as fixed UTC windows (pure: no clock, no I/O).
 *
 * Two windows per account: the current minute (`rl:{id}:m:{epochMinute}`) and the current
 * UTC day (`rl:{id}:d:{YYYY-MM-DD}`). A request is checked in two phases the caller runs
 * against a CounterStore: increment the minute window and decide; only if the minute
 * allows it, increment the day window and decide. So a request refused by the minute
 * limit never consumes day quota, and a burst cannot burn a whole day's allowance.
 *
 * Window names carry the window's start, so a stale counter can never be mistaken for
 * the current one; a key's TTL only bounds how long the counter store keeps it.
 */
import type { TierLimits } from "./tiers.ts";

export type RateWindowKind = "minute" | "day";

export interface RateLimits {
  perMinute: number;
  perDay: number;
}

export interface RateWindow {
  kind: RateWindowKind;
  /** Counter key, without any store prefix. */
  key: string;
  limit: number;
  /** Epoch ms at which this window ends and counting starts again from zero. */
  resetAtMs: number;
  /** TTL for the counter key: the rest of the window plus CLOCK_SKEW_SLACK_MS. */
  ttlMs: number;
}

export interface RatePlan {
  nowMs: number;
  minute: RateWindow;
  day: RateWindow;
}

export type RateLimitHeaders = Record<string, string>;

export type RateDecision =
  | { allowed: true; headers: RateLimitHeaders }
  | { allowed: false; exceeded: RateWindowKind; headers: RateLimitHeaders };

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Instances compute window names from their own clocks. If one whose clock runs ahead
 * created a key with a TTL of exactly "the rest of the window", the key could vanish
 * while slower instances still count in that window, resetting it early. The slack
 * keeps keys a little past their window instead; it costs only memory.
 */
export const CLOCK_SKEW_SLACK_MS = 30_000;

/**
 * The tier's limits times CAIRN_RATE_LIMIT_SCALE, rounded down and at least 1. The tiny
 * epsilon stops float error from rounding e.g. 100 * 0.29 = 28.999... down to 28.
 */
export function effectiveLimits(tier: Pick<TierLimits, "req_per_min" | "req_per_day">, scale = 1): RateLimits {
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new Error(`rate limit scale must be a positive number, got ${scale}`);
  }
  const scaled = (n: number) => Math.max(1, Math.floor(n * scale + 1e-9));
  return { perMinute: scaled(tier.req_per_min), perDay: scaled(tier.req_per_day) };
}

/**
 * The last day formatted: every request asks (rate-limit window, usage), and formatting a
 * Date showed up in profiles of the hot path, while the answer changes once a day.
 */
let lastDayIndex = Number.NaN;
let lastDay = "";

/** The UTC calendar day of an instant, YYYY-MM-DD. */
export function utcDay(ms: number): string {
  const index = Math.floor(ms / DAY_MS);
  if (index === lastDayIndex) return lastDay;
  const day = new Date(ms).toISOString().slice(0, 10);
  lastDayIndex = index;
  lastDay = day;
  return day;
}

/** The windows a request at `nowMs` counts against. */
export function planRateLimit(accountId: number, limits: RateLimits, nowMs: number): RatePlan {
  const minuteIndex = Math.floor(nowMs / MINUTE_MS);
  const minuteReset = (minuteIndex + 1) * MINUTE_MS;
  // Epoch days are whole UTC days (no leap seconds in epoch time), so this is UTC midnight.
  const dayReset = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
  return {
    nowMs,
    minute: {
      kind: "minute",
      key: `rl:${accountId}:m:${minuteIndex}`,
      limit: limits.perMinute,
      resetAtMs: minuteReset,
      ttlMs: minuteReset - nowMs + CLOCK_SKEW_SLACK_MS,
    },
    day: {
      kind: "day",
      key: `rl:${accountId}:d:${utcDay(nowMs)}`,
      limit: limits.perDay,
      resetAtMs: dayReset,
      ttlMs: dayReset - nowMs + CLOCK_SKEW_SLACK_MS,
    },
  };
}

/**
 * Phase 1, after incrementing the minute window: a refusal, or null to go on to the day
 * window. The day count is unknown here on purpose (it was not touched), so a refusal
 * reports the minute window only.
 */
export function decideMinute(plan: RatePlan, minuteCount: number): RateDecision | null {
  if (minuteCount <= plan.minute.limit) return null;
  return refuse(plan, plan.minute);
}

/** Phase 2, after incrementing the day window (only when decideMinute returned null). */
export function decideDay(plan: RatePlan, minuteCount: number, dayCount: number): RateDecision {
  if (dayCount > plan.day.limit) return refuse(plan, plan.day);
  const minuteLeft = remaining(plan.minute, minuteCount);
  const dayLeft = remaining(plan.day, dayCount);
  // The binding window is the one that will refuse first. On a tie that is the minute
  // window, because the next request is checked against it first.
  const binding = dayLeft < minuteLeft ? plan.day : plan.minute;
  return {
    allowed: true,
    headers: baseHeaders(plan, binding, Math.min(minuteLeft, dayLeft)),
  };
}

/** Whole seconds from now until `atMs`, at least 1 (a client told 0 would retry at once). */
export function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}

function remaining(w: RateWindow, count: number): number {
  return Math.max(0, w.limit - count);
}

function refuse(plan: RatePlan, w: RateWindow): RateDecision {
  const headers = baseHeaders(plan, w, 0);
  headers["Retry-After"] = String(secondsUntil(w.resetAtMs, plan.nowMs));
  return { allowed: false, exceeded: w.kind, headers };
}

function baseHeaders(plan: RatePlan, w: RateWindow, left: number): RateLimitHeaders {
  return {
    "X-RateLimit-Limit": String(w.limit),
    "X-RateLimit-Remaining": String(left),
    "X-RateLimit-Reset": String(secondsUntil(w.resetAtMs, plan.nowMs)),
  };
}
