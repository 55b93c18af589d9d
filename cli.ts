/**
 * Operator CLI (README "Operator interface"):
 *   bun run cli seed                                   idempotent demo tenant and users
 *   bun run cli token --email E [--tier free|pro|enterprise]   prints a JWT (creates the user if needed)
 *   bun run cli apikey --email E [--label L]           prints a new API key
 *   bun run cli admin-key                              prints the admin-consumer key
 *   bun run cli demo-key                               replaces and prints the demo user's "demo" key
 * Values go to stdout alone, so `$(bun run cli token --email a@b.c)` works.
 */
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "./config.ts";
import { isUserTier } from "./domain/tiers.ts";
import { signUserToken } from "./http/auth/jwt.ts";
import { loadInstallationSecrets } from "./http/auth/secrets.ts";
import { openControlPlane } from "./main.ts";
import {
  DEMO_TENANT_SLUG,
  DEMO_USERS,
  ensureDemoTenant,
  ensureUser,
  issueApiKey,
  rotateDemoKey,
  seedDemo,
} from "./pipelines/demo-seed.ts";

function fail(msg: string): never {
  process.stderr.write(`cairn: ${msg}\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      tier: { type: "string" },
      label: { type: "string" },
      name: { type: "string" },
    },
    strict: true,
  });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    fail(err instanceof ConfigError ? err.message : String(err));
  }
  const store = await openControlPlane(config);
  try {
    const secrets = await loadInstallationSecrets(config, store);
    switch (command) {
      case "seed": {
        const demo = await seedDemo(store);
        process.stdout.write(`${JSON.stringify(demo, null, 2)}\n`);
        break;
      }
      case "token": {
        if (!values.email) fail("token needs --email");
        if (values.tier !== undefined && !isUserTier(values.tier)) fail("--tier must be free, pro or enterprise");
        const tenant = await ensureDemoTenant(store);
        const user = await ensureUser(store, tenant.tenant_id, values.email, values.tier, values.name);
        const token = await signUserToken(
          {
            secret: secrets.jwtSecret,
            issuer: config.jwt.issuer,
            audience: config.jwt.audience,
            ttlSeconds: config.jwt.ttlSeconds,
          },
          { userId: user.id, email: user.email, tenantId: user.tenant_id },
        );
        process.stdout.write(`${token}\n`);
        break;
      }
      case "apikey": {
        if (!values.email) fail("apikey needs --email");
        if (values.tier !== undefined && !isUserTier(values.tier)) fail("--tier must be free, pro or enterprise");
        const tenant = await ensureDemoTenant(store);
        const user = await ensureUser(store, tenant.tenant_id, values.email, values.tier, values.name);
        const key = await issueApiKey(store, user, values.label ?? "cli");
        if (!key) fail(`API key limit reached for ${user.email} (${user.tier} tier); revoke one in the dashboard`);
        process.stdout.write(`${key}\n`);
        break;
      }
      case "demo-key":
        // Used by the run command: replaces the demo user's "demo" key so it can be printed.
        process.stdout.write(`${await rotateDemoKey(store, DEMO_USERS[0]?.email ?? "")}\n`);
        break;
      case "admin-key":
        process.stdout.write(`${secrets.adminApiKey}\n`);
        break;
      default:
        fail(
          `unknown command '${command ?? ""}' (seed | token | apikey | admin-key); demo tenant slug: ${DEMO_TENANT_SLUG}`,
        );
    }
  } finally {
    await store.close();
  }
}

await main(process.argv.slice(2));
