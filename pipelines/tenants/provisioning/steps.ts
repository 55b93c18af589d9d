/**
 * The nine provisioning steps. Each is idempotent ("create if absent, then verify"), so
 * a resume or a crash recovery may run a step again without duplicating anything.
 */

import type { LakehousePort } from "../../../domain/lakehouse/ports.ts";
import type { ControlPlaneStore, Tenant } from "../../../domain/ports.ts";
import { lakehouseNamespace, type NamespacePort, type TenantRef } from "../../../domain/tenants/namespaces.ts";
import { generateApiKey, hashApiKey } from "../../../domain/user/api-keys.ts";
import { TIER_LIMITS } from "../../../domain/user/tiers.ts";

export interface SecretSealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export interface DefaultCatalogWriter {
  /** Upserts the tenant's `svc-lakehouse` catalog record (idempotent). */
  ensureDefaultCatalog(
    tenant: Tenant,
    target: { catalogUri: string; warehouse: string; storagePrefix: string },
  ): Promise<void>;
}

export interface ProvisioningEngines {
  documentIndex: NamespacePort;
  timeseries: NamespacePort;
  graph: NamespacePort;
  /** Null when no lakehouse is configured: steps 4 and 5 record that and move on. */
  lakehouse: LakehousePort | null;
}

export interface StepContext {
  tenant: Tenant;
  ref: TenantRef;
  store: ControlPlaneStore;
  engines: ProvisioningEngines;
  catalogs: DefaultCatalogWriter | null;
  lakehouseUrl: string | null;
  sealer: SecretSealer;
  /** Publishes the routing-cache update after activation. */
  publishRouting(tenantId: string): Promise<void>;
}

export interface Step {
  id: string;
  name: string;
  run(ctx: StepContext): Promise<void>;
}

export const DEFAULT_ROLES = [
  { role: "viewer", description: "Reads documents, data and models of the tenant" },
  { role: "editor", description: "Edits documents, datasets and models" },
  { role: "owner", description: "Administers the tenant: members, catalogs, sync targets" },
];

export const SETTING = {
  reserved: "provisioning.reserved_at",
  adminEmail: "admin_email",
  lakehouse: "lakehouse",
  initialKeyId: "initial_api_key_id",
  initialKeySealed: "initial_api_key_sealed",
  smoke: "provisioning.smoke_probe",
} as const;

async function ensureAdmin(ctx: StepContext): Promise<void> {
  const { store, tenant } = ctx;
  const email =
    (await store.getTenantSetting(tenant.tenant_id, SETTING.adminEmail)) ?? `admin@${tenant.slug}.cairn.local`;
  let admin = await store.getUserByEmail(email);
  if (admin && admin.tenant_id !== tenant.tenant_id) {
    throw new Error(`admin e-mail ${email} already belongs to another tenant`);
  }
  admin ??= await store.createUser({
    tenant_id: tenant.tenant_id,
    email,
    name: `${tenant.display_name} admin`,
    tier: "enterprise",
    email_verified: true,
    roles: ["owner"],
  });
  const keys = await store.listApiKeys(admin.id);
  const keyId = await store.getTenantSetting(tenant.tenant_id, SETTING.initialKeyId);
  if (keyId && keys.some((k) => k.id === keyId)) return;

  // The plaintext is sealed in the control plane before the key row exists, so a crash
  // between the two leaves something to finish, never a key nobody can read.
  let sealed = await store.getTenantSetting(tenant.tenant_id, SETTING.initialKeySealed);
  if (!sealed) {
    sealed = ctx.sealer.seal(generateApiKey().key);
    await store.putTenantSetting(tenant.tenant_id, SETTING.initialKeySealed, sealed);
  }
  const plaintext = ctx.sealer.open(sealed);
  for (const k of keys) if (k.label === "initial") await store.deleteApiKey(admin.id, k.id);
  const made = await store.createApiKey({
    userId: admin.id,
    hash: hashApiKey(plaintext),
    prefix: plaintext.slice(6, 14),
    label: "initial",
    maxKeys: TIER_LIMITS.enterprise.api_keys,
  });
  if (!made) throw new Error("the tenant admin has no room for an initial API key");
  await store.putTenantSetting(tenant.tenant_id, SETTING.initialKeyId, made.id);
}

async function smokeControlPlane(ctx: StepContext): Promise<void> {
  const probe = crypto.randomUUID();
  await ctx.store.putTenantSetting(ctx.tenant.tenant_id, SETTING.smoke, probe);
  const back = await ctx.store.getTenantSetting(ctx.tenant.tenant_id, SETTING.smoke);
  await ctx.store.deleteTenantSetting(ctx.tenant.tenant_id, SETTING.smoke);
  if (back !== probe) throw new Error("control plane smoke test read back a different value");
}

export const STEPS: readonly Step[] = [
  {
    id: "step_1",
    name: "reserve_tenant",
    run: async ({ store, tenant }) => {
      const row = await store.getTenantBySlug(tenant.slug);
      if (!row || row.tenant_id !== tenant.tenant_id)
        throw new Error(`slug ${tenant.slug} is not reserved for this tenant`);
      if ((await store.getTenantSetting(tenant.tenant_id, SETTING.reserved)) === null) {
        await store.putTenantSetting(tenant.tenant_id, SETTING.reserved, new Date().toISOString());
      }
    },
  },
  {
    id: "step_2",
    name: "tenant_scope",
    run: async ({ store, tenant }) => {
      await store.ensureTenantRoles(tenant.tenant_id, DEFAULT_ROLES);
      const roles = (await store.listTenantRoles(tenant.tenant_id)).map((r) => r.role);
      for (const r of DEFAULT_ROLES) if (!roles.includes(r.role)) throw new Error(`role ${r.role} is missing`);
    },
  },
  {
    id: "step_3",
    name: "document_index",
    run: async ({ engines, ref }) => {
      await engines.documentIndex.ensureNamespace(ref);
    },
  },
  {
    id: "step_4",
    name: "lakehouse_namespace",
    run: async ({ engines, ref, store, tenant }) => {
      if (!engines.lakehouse) {
        await store.putTenantSetting(tenant.tenant_id, SETTING.lakehouse, "not_configured");
        return;
      }
      await engines.lakehouse.ensureNamespace(ref);
      await store.putTenantSetting(tenant.tenant_id, SETTING.lakehouse, engines.lakehouse.namespaceOf(ref));
    },
  },
  {
    id: "step_5",
    name: "default_catalog",
    run: async ({ engines, catalogs, lakehouseUrl, tenant }) => {
      if (!engines.lakehouse || !catalogs || !lakehouseUrl) return;
      const health = await engines.lakehouse.health();
      if (health.status !== "ok") throw new Error(`lakehouse unavailable: ${health.error}`);
      const ns = lakehouseNamespace(tenant.slug);
      await catalogs.ensureDefaultCatalog(tenant, {
        catalogUri: lakehouseUrl,
        warehouse: health.warehouse,
        storagePrefix: ns,
      });
    },
  },
  {
    id: "step_6",
    name: "timeseries_namespace",
    run: async ({ engines, ref }) => {
      await engines.timeseries.ensureNamespace(ref);
    },
  },
  {
    id: "step_7",
    name: "graph_namespace",
    run: async ({ engines, ref }) => {
      await engines.graph.ensureNamespace(ref);
    },
  },
  { id: "step_8", name: "tenant_admin", run: ensureAdmin },
  {
    id: "step_9",
    name: "smoke_and_activate",
    run: async (ctx) => {
      await smokeControlPlane(ctx);
      const { engines, ref } = ctx;
      await engines.documentIndex.smokeTest(ref);
      if (engines.lakehouse) await engines.lakehouse.smokeTest(ref);
      await engines.timeseries.smokeTest(ref);
      await engines.graph.smokeTest(ref);
      const active = await ctx.store.transitionTenant(ctx.tenant.tenant_id, ["provisioning"], {
        provisioning_state: "active",
        is_active: true,
        completed_steps: STEPS.map((s) => s.id),
      });
      if (!active) throw new Error("tenant left the provisioning state before activation");
      await ctx.publishRouting(ctx.tenant.tenant_id);
    },
  },
];
