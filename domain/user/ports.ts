/**
 * What the user area needs from the engines: the control plane's API-key rows, the
 * authenticator's key cache, and the cross-cutting rate limiter and usage recorder that the
 * HTTP guards also use (implemented by actors/user).
 */
import type { ApiKeyRecord } from "../ports.ts";
import type { UserTier } from "./tiers.ts";

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

/** The user's API keys in the control plane (ControlPlaneStore implements it). */
export interface ApiKeyStore {
  /** Inserts a key unless the user already has maxKeys; returns null when at the limit. */
  createApiKey(input: {
    userId: number;
    hash: string;
    prefix: string;
    label: string;
    maxKeys: number;
  }): Promise<ApiKeyRecord | null>;
  listApiKeys(userId: number): Promise<ApiKeyRecord[]>;
  deleteApiKey(userId: number, keyId: string): Promise<boolean>;
}

/** The authenticator's cache of verified keys: a revoked key must stop working at once here. */
export interface ApiKeyCache {
  forgetApiKey(keyId: string): void;
}
