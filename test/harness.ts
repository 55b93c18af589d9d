/**
 * Boots real service instances for route tests: a temp data dir (embedded profile) or the
 * test engines (cluster profile), a seeded active tenant, and helpers for credentials.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureUser, issueApiKey } from "../cli/demo-seed.ts";
import { loadConfig } from "../config.ts";
import type { User } from "../domain/ports.ts";
import type { UserTier } from "../domain/user/tiers.ts";
import { signUserToken } from "../http/auth/jwt.ts";
import { buildService, type Service, type ServiceOptions } from "../main.ts";

export interface TestService {
  service: Service;
  tenantId: string;
  request(path: string, init?: RequestInit): Promise<Response>;
  user(email: string, tier?: UserTier, roles?: string[]): Promise<User>;
  token(email: string, tier?: UserTier): Promise<string>;
  apiKey(email: string, tier?: UserTier): Promise<string>;
  /** Another active tenant of this installation, and a JWT for a user of it (isolation tests). */
  addTenant(): Promise<{ tenantId: string; slug: string; token(email: string): Promise<string> }>;
  close(): Promise<void>;
}

export async function startTestService(
  env: Record<string, string> = {},
  opts: ServiceOptions & { tenantSlug?: string; dataDir?: string } = {},
): Promise<TestService> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "cairn-svc-"));
  const config = loadConfig({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_LOG_LEVEL: "silent",
    NODE_ENV: "test",
    // Tiering would drop a suite's old rows mid-test; suites that test it turn it on.
    CAIRN_TIERING_INTERVAL_MS: "0",
    // One model process per test service (suites check behaviour, not throughput; the pool's
    // shapes have their own tests), so a 2-core CI does not start two per service.
    CAIRN_EMBEDDING_PROCESSES: "1",
    ...env,
  });
  const service = await buildService(config, opts);
  const { store, secrets } = service;
  const slug = opts.tenantSlug ?? `t-${crypto.randomUUID().slice(0, 8)}`;
  const tenant =
    (await store.getTenantBySlug(slug)) ??
    (await store.createTenant({
      slug,
      display_name: "Test Tenant",
      tier: "enterprise",
      region: "local",
      provisioning_state: "active",
      is_active: true,
    }));
  const user = (email: string, tier?: UserTier, roles?: string[]) =>
    ensureUser(store, tenant.tenant_id, email, tier, undefined, roles);
  const jwtFor = (u: User) =>
    signUserToken(
      { secret: secrets.jwtSecret, issuer: config.jwt.issuer, audience: config.jwt.audience, ttlSeconds: 600 },
      { userId: u.id, email: u.email, tenantId: u.tenant_id },
    );
  return {
    service,
    tenantId: tenant.tenant_id,
    request: async (path, init) => service.fetch(new Request(`http://cairn.test${path}`, init)),
    user,
    token: async (email, tier) => jwtFor(await user(email, tier)),
    apiKey: async (email, tier) => {
      const u = await user(email, tier);
      const key = await issueApiKey(store, u, "test");
      if (!key) throw new Error(`API key limit reached for ${email}`);
      return key;
    },
    addTenant: async () => {
      const other = await store.createTenant({
        slug: `t-${crypto.randomUUID().slice(0, 8)}`,
        display_name: "Other Tenant",
        tier: "enterprise",
        region: "local",
        provisioning_state: "active",
        is_active: true,
      });
      return {
        tenantId: other.tenant_id,
        slug: other.slug,
        token: async (email: string) => jwtFor(await ensureUser(store, other.tenant_id, email, "enterprise")),
      };
    },
    close: async () => {
      await service.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
