/** Account tiers and their limits (spec section 8.1). */

export const USER_TIERS = ["free", "pro", "enterprise"] as const;
export type UserTier = (typeof USER_TIERS)[number];

export interface TierLimits {
  req_per_min: number;
  req_per_day: number;
  api_keys: number;
  history_retention_years: number;
  filings_per_query: number;
}

export const TIER_LIMITS: Readonly<Record<UserTier, Readonly<TierLimits>>> = {
  free: { req_per_min: 5, req_per_day: 1_000, api_keys: 1, history_retention_years: 2, filings_per_query: 10 },
  pro: { req_per_min: 60, req_per_day: 10_000, api_keys: 5, history_retention_years: 5, filings_per_query: 100 },
  enterprise: {
    req_per_min: 500,
    req_per_day: 100_000,
    api_keys: 50,
    history_retention_years: 10,
    filings_per_query: 1_000,
  },
};

export function isUserTier(v: string): v is UserTier {
  return (USER_TIERS as readonly string[]).includes(v);
}
