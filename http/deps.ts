/** What the HTTP layer needs from the composition root (main.ts wires the adapters). */
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { ControlPlaneStore, CounterStore, JobQueue, PubSub, Tenant } from "../domain/ports.ts";
import type { UserTier } from "../domain/tiers.ts";
import type { Authenticator } from "./auth/authenticator.ts";
import type { InstallationSecrets } from "./auth/secrets.ts";

export interface TenantResolver {
  /** The tenant when active; throws AppError tenant_inactive / not_found otherwise. */
  resolve(tenantId: string): Promise<Tenant>;
  invalidate(tenantId: string): Promise<void>;
}

export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
  exceeded?: "minute" | "day";
}

export interface RateLimiterPort {
  check(accountId: number, tier: UserTier): Promise<RateLimitDecision>;
}

export interface UsagePort {
  record(userId: number, now?: Date): void;
  usage(userId: number, now?: Date): Promise<{ today: number; this_month: number }>;
}

export interface AppDeps {
  config: Config;
  logger: Logger;
  store: ControlPlaneStore;
  queue: JobQueue;
  counters: CounterStore;
  pubsub: PubSub;
  secrets: InstallationSecrets;
  auth: Authenticator;
  tenants: TenantResolver;
  rateLimiter: RateLimiterPort;
  usage: UsagePort;
  /** Set by main.ts during graceful shutdown so /readyz turns 503 first. */
  draining?: () => boolean;
}
