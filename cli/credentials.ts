/**
 * `token`, `apikey`, `demo-key`, `admin-key`: credentials for a tenant's users (the demo
 * tenant unless --tenant names another) and for the installation.
 */
import type { ControlPlaneStore, User } from "../domain/ports.ts";
import { isUserTier, type UserTier } from "../domain/user/tiers.ts";
import { signUserToken } from "../http/auth/jwt.ts";
import type { CliContext, CliFlags, Command } from "./context.ts";
import { fail, print } from "./context.ts";
import { DEMO_USERS, demoApiKey, ensureDemoTenant, ensureUser, issueApiKey } from "./demo-seed.ts";

/** The roles a tenant without its own role table knows (the provisioning defaults). */
export const DEFAULT_TENANT_ROLES = ["viewer", "editor", "owner"];

/**
 * The user `token` and `apikey` act for: `--tenant SLUG` (default: the demo tenant, seeded
 * when missing) and `--role ROLE` (one of the tenant's roles). An unknown slug or role, or an
 * e-mail that belongs to another tenant, is an error: never a fallback to another tenant.
 */
export async function cliUser(
  store: ControlPlaneStore,
  flags: { email?: string; tier?: string; name?: string; tenant?: string; role?: string },
): Promise<User> {
  if (!flags.email) throw new Error("needs --email");
  if (flags.tier !== undefined && !isUserTier(flags.tier)) throw new Error("--tier must be free, pro or enterprise");
  const slug = flags.tenant?.trim();
  const tenant = slug === undefined ? await ensureDemoTenant(store) : await store.getTenantBySlug(slug);
  if (!tenant) throw new Error(`unknown tenant '${slug}' (create it with POST /v1/admin/tenants)`);
  if (!tenant.is_active) throw new Error(`tenant '${tenant.slug}' is not active (${tenant.provisioning_state})`);
  const role = flags.role?.trim();
  if (role !== undefined) {
    const stored = (await store.listTenantRoles(tenant.tenant_id)).map((r) => r.role);
    const known = stored.length > 0 ? stored : DEFAULT_TENANT_ROLES;
    if (!known.includes(role))
      throw new Error(`unknown role '${role}' in tenant '${tenant.slug}' (${known.join(", ")})`);
  }
  const found = await store.getUserByEmail(flags.email);
  if (found && found.tenant_id !== tenant.tenant_id) {
    throw new Error(`${found.email} belongs to another tenant, not '${tenant.slug}': use another --email`);
  }
  const tier = flags.tier as UserTier | undefined;
  const user = await ensureUser(store, tenant.tenant_id, flags.email, tier, flags.name, role ? [role] : undefined);
  if (role && (user.roles.length !== 1 || user.roles[0] !== role)) return store.updateUser(user.id, { roles: [role] });
  return user;
}

async function demoUser({ command, flags, store }: CliContext) {
  try {
    return await cliUser(store, flags as CliFlags & { role?: string });
  } catch (err) {
    fail(`${command}: ${(err as Error).message}`);
  }
}

/** A JWT for a user of the tenant (created when needed, with --role when given). */
export const token: Command = async (ctx) => {
  const user = await demoUser(ctx);
  const { config, secrets } = ctx;
  const jwt = await signUserToken(
    {
      secret: secrets.jwtSecret,
      issuer: config.jwt.issuer,
      audience: config.jwt.audience,
      ttlSeconds: config.jwt.ttlSeconds,
    },
    { userId: user.id, email: user.email, tenantId: user.tenant_id },
  );
  print(jwt);
};

/** A new API key for a user of the tenant. */
export const apikey: Command = async (ctx) => {
  const user = await demoUser(ctx);
  const key = await issueApiKey(ctx.store, user, ctx.flags.label ?? "cli");
  if (!key) fail(`API key limit reached for ${user.email} (${user.tier} tier); revoke one in the dashboard`);
  print(key);
};

/** The demo user's "demo" key: the run command prints it, and a restart must not replace it. */
export const demoKey: Command = async ({ store, config }) => {
  print(await demoApiKey(store, DEMO_USERS[0]?.email ?? "", config.dataDir));
};

export const adminKey: Command = async ({ secrets }) => {
  print(secrets.adminApiKey);
};
