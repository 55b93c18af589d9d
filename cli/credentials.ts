/**
 * `token`, `apikey`, `demo-key`, `admin-key`: credentials for the demo tenant's users and
 * for the installation.
 */
import { isUserTier } from "../domain/user/tiers.ts";
import { signUserToken } from "../http/auth/jwt.ts";
import type { CliContext, Command } from "./context.ts";
import { fail, print } from "./context.ts";
import { DEMO_USERS, demoApiKey, ensureDemoTenant, ensureUser, issueApiKey } from "./demo-seed.ts";

async function demoUser({ command, flags, store }: CliContext) {
  if (!flags.email) fail(`${command} needs --email`);
  if (flags.tier !== undefined && !isUserTier(flags.tier)) fail("--tier must be free, pro or enterprise");
  const tenant = await ensureDemoTenant(store);
  return ensureUser(store, tenant.tenant_id, flags.email, flags.tier, flags.name);
}

/** A JWT for a user of the demo tenant (created when needed). */
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

/** A new API key for a user of the demo tenant. */
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
