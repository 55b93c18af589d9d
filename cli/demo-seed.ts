/** Demo data for the embedded profile: one active tenant and three users. Idempotent. */

import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ControlPlaneStore, Tenant, User } from "../domain/ports.ts";
import { generateApiKey, hashApiKey } from "../domain/user/api-keys.ts";
import { TIER_LIMITS, type UserTier } from "../domain/user/tiers.ts";

export const DEMO_TENANT_SLUG = "demo";

export const DEMO_USERS: { email: string; name: string; tier: UserTier; roles: string[] }[] = [
  { email: "demo@cairn.local", name: "Demo Analyst", tier: "enterprise", roles: ["owner"] },
  { email: "pro@cairn.local", name: "Pro Editor", tier: "pro", roles: ["editor"] },
  { email: "free@cairn.local", name: "Free Viewer", tier: "free", roles: ["viewer"] },
];

export async function ensureDemoTenant(store: ControlPlaneStore): Promise<Tenant> {
  const existing = await store.getTenantBySlug(DEMO_TENANT_SLUG);
  if (existing) return existing;
  try {
    return await store.createTenant({
      slug: DEMO_TENANT_SLUG,
      display_name: "Demo Capital",
      tier: "enterprise",
      region: "local",
      provisioning_state: "active",
      is_active: true,
    });
  } catch (err) {
    // Lost a race with a concurrent seed: the other one created it.
    const again = await store.getTenantBySlug(DEMO_TENANT_SLUG);
    if (again) return again;
    throw err;
  }
}

export async function ensureUser(
  store: ControlPlaneStore,
  tenantId: string,
  email: string,
  tier?: UserTier,
  name?: string,
  roles?: string[],
): Promise<User> {
  const found = await store.getUserByEmail(email);
  if (found) return tier && found.tier !== tier ? store.updateUser(found.id, { tier }) : found;
  return store.createUser({
    tenant_id: tenantId,
    email,
    name: name ?? email.split("@")[0] ?? email,
    tier: tier ?? "free",
    email_verified: true,
    roles: roles ?? ["viewer"],
  });
}

/** A new API key for the user, or null at the tier's limit. */
export async function issueApiKey(store: ControlPlaneStore, user: User, label: string): Promise<string | null> {
  const made = generateApiKey();
  const rec = await store.createApiKey({
    userId: user.id,
    hash: made.hash,
    prefix: made.prefix,
    label,
    maxKeys: TIER_LIMITS[user.tier].api_keys,
  });
  return rec ? made.key : null;
}

export async function seedDemo(
  store: ControlPlaneStore,
): Promise<{ tenant_id: string; slug: string; users: string[] }> {
  const tenant = await ensureDemoTenant(store);
  for (const u of DEMO_USERS) await ensureUser(store, tenant.tenant_id, u.email, u.tier, u.name, u.roles);
  return { tenant_id: tenant.tenant_id, slug: tenant.slug, users: DEMO_USERS.map((u) => u.email) };
}

/** Replaces the demo user's "demo" key with a fresh one (the run command prints it). */
export async function rotateDemoKey(store: ControlPlaneStore, email: string): Promise<string> {
  const user = await store.getUserByEmail(email);
  if (!user) throw new Error(`demo user ${email} is missing: run seed first`);
  for (const k of await store.listApiKeys(user.id)) {
    if (k.label === "demo") await store.deleteApiKey(user.id, k.id);
  }
  const key = await issueApiKey(store, user, "demo");
  if (!key) throw new Error(`API key limit reached for ${email}`);
  return key;
}

/** Where the demo key's plaintext is kept: the control plane stores only its hash. */
export const DEMO_KEY_FILE = "demo-api-key";

/**
 * The demo user's "demo" key, the same on every start so a key printed before keeps working.
 * The plaintext lives in `dataDir/demo-api-key` (mode 0600, like the other secrets kept in
 * the data directory); it is reused while it still authenticates as that user, and replaced
 * (old "demo" keys deleted) when it is missing, revoked or belongs to someone else.
 */
export async function demoApiKey(store: ControlPlaneStore, email: string, dataDir: string): Promise<string> {
  const file = join(dataDir, DEMO_KEY_FILE);
  const saved = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  if (saved) {
    const found = await store.findUserByApiKeyHash(hashApiKey(saved));
    if (found?.user.email === email.toLowerCase() && found.key.label === "demo") return saved;
  }
  const key = await rotateDemoKey(store, email);
  // Written whole or not at all: a reader never sees half a key.
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, `${key}\n`, { mode: 0o600, flag: "wx" });
  renameSync(tmp, file);
  return key;
}
