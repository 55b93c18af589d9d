/**
 * Applies the tier rate limits of spec 8.1 to one request, over any CounterStore: the
 * in-process store for one instance, Redis when several instances must share one count.
 *
 * The two phases of domain/user/rate-limit.ts run as two increments: the day window is only
 * touched once the minute window has allowed the request, so minute refusals never eat
 * into the day quota. That costs a second round trip for allowed requests, which is the
 * price of keeping the rule in pure code rather than in a store-specific script. An
 * in-process store (incrNow) is incremented synchronously: the same two phases, no awaits.
 */
import type { CounterStore } from "../../domain/ports.ts";
import type { RateLimiterPort } from "../../domain/user/ports.ts";
import {
  decideDay,
  decideMinute,
  effectiveLimits,
  planRateLimit,
  type RateDecision,
  type RateLimits,
  type RateWindow,
} from "../../domain/user/rate-limit.ts";
import { TIER_LIMITS, type TierLimits, USER_TIERS, type UserTier } from "../../domain/user/tiers.ts";

export interface RateLimiterOptions {
  /** CAIRN_RATE_LIMIT_SCALE: multiplies every tier's limits (default 1). */
  scale?: number;
  /** Epoch milliseconds; injectable so tests cross window boundaries without sleeping. */
  now?: () => number;
  /** The per-tier limits before scaling (default: the spec's tier table). */
  tiers?: Readonly<Record<UserTier, Pick<TierLimits, "req_per_min" | "req_per_day">>>;
}

export class RateLimiter implements RateLimiterPort {
  private readonly now: () => number;
  private readonly limits: Readonly<Record<UserTier, RateLimits>>;

  constructor(
    private readonly counters: CounterStore,
    opts: RateLimiterOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    const tiers = opts.tiers ?? TIER_LIMITS;
    const scale = opts.scale ?? 1;
    // Computed once so a bad scale fails at start-up, not on the first request.
    const entries = USER_TIERS.map((t) => [t, effectiveLimits(tiers[t], scale)] as const);
    this.limits = Object.fromEntries(entries) as Record<UserTier, RateLimits>;
  }

  /** The limits in force for a tier (after scaling). */
  limitsFor(tier: UserTier): RateLimits {
    return this.limits[tier];
  }

  /** Counts one request for the account and decides whether it may proceed. */
  async check(accountId: number, tier: UserTier): Promise<RateDecision> {
    const plan = planRateLimit(accountId, this.limits[tier], this.now());
    if (this.counters.incrNow) {
      const minute = this.counters.incrNow(plan.minute.key, plan.minute.ttlMs);
      return decideMinute(plan, minute) ?? decideDay(plan, minute, this.counters.incrNow(plan.day.key, plan.day.ttlMs));
    }
    const minute = await this.increment(plan.minute);
    const refused = decideMinute(plan, minute);
    if (refused) return refused;
    const day = await this.increment(plan.day);
    return decideDay(plan, minute, day);
  }

  private async increment(w: RateWindow): Promise<number> {
    const [value] = await this.counters.incr([{ key: w.key, ttlMs: w.ttlMs }]);
    if (value === undefined) throw new Error(`CounterStore returned no value for ${w.key}`);
    return value;
  }
}
