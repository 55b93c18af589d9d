/**
 * What /v1/user/* does (spec 2.1, 4.3): the caller's profile with tier limits and usage,
 * and the dashboard's API-key management. No I/O of its own: the stores come through
 * ./ports.ts. The caller is always the authenticated user (the guards resolved it).
 */
import { AppError } from "../errors.ts";
import type { ApiKeyRecord, User } from "../ports.ts";
import { generateApiKey } from "./api-keys.ts";
import type { ApiKeyCache, ApiKeyStore, UsagePort } from "./ports.ts";
import { TIER_LIMITS, type TierLimits } from "./tiers.ts";

export interface UserServiceDeps {
  keys: ApiKeyStore;
  keyCache: ApiKeyCache;
  usage: UsagePort;
}

/** An API key as the dashboard sees it: never the key, nor whose it is (the caller's). */
export type ApiKeyView = Omit<ApiKeyRecord, "user_id">;

export interface UserProfileView {
  id: number;
  email: string;
  name: string;
  tier: User["tier"];
  email_verified: boolean;
  created_at: string;
  limits: TierLimits;
  current_usage: { today: number; this_month: number };
}

const view = ({ user_id: _, ...k }: ApiKeyRecord): ApiKeyView => k;

export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  async profile(user: User): Promise<UserProfileView> {
    const usage = await this.deps.usage.usage(user.id);
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      tier: user.tier,
      email_verified: user.email_verified,
      created_at: user.created_at,
      limits: { ...TIER_LIMITS[user.tier] },
      current_usage: usage,
    };
  }

  async listApiKeys(user: User): Promise<ApiKeyView[]> {
    return (await this.deps.keys.listApiKeys(user.id)).map(view);
  }

  /** A new key, shown once (only its hash is stored); 409 once the tier's limit is reached. */
  async createApiKey(user: User, label: string): Promise<ApiKeyView & { key: string }> {
    const made = generateApiKey();
    const max = TIER_LIMITS[user.tier].api_keys;
    const rec = await this.deps.keys.createApiKey({
      userId: user.id,
      hash: made.hash,
      prefix: made.prefix,
      label,
      maxKeys: max,
    });
    if (!rec) throw new AppError("conflict", `API key limit reached: the ${user.tier} tier allows ${max}`);
    return { ...view(rec), key: made.key };
  }

  /** 404 unless the key is the caller's; the key stops working at once on this instance. */
  async revokeApiKey(user: User, keyId: string): Promise<void> {
    const ok = await this.deps.keys.deleteApiKey(user.id, keyId);
    if (!ok) throw new AppError("not_found", "No API key with that id");
    this.deps.keyCache.forgetApiKey(keyId);
  }
}
