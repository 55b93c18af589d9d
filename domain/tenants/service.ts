/**
 * What /v1/admin/tenants* does (spec 4.1): create or resume a tenant, list, report the
 * provisioning status, deactivate, hand over the initial admin key. Provisioning itself is
 * the pipeline's (through TenantAdminPort); this service shapes what the admin API shows.
 */
import type { Tenant } from "../ports.ts";
import type { NewTenantInput, TenantAdminPort, TenantListing } from "./ports.ts";
import type { TenantStatus } from "./status.ts";

export interface TenantsServiceDeps {
  admin: TenantAdminPort;
  store: TenantListing;
}

/** A tenant as the admin API lists it (no step details: those are in the status). */
export type TenantSummary = Pick<
  Tenant,
  "tenant_id" | "slug" | "display_name" | "tier" | "region" | "provisioning_state" | "is_active" | "provisioned_at"
>;

const summary = (t: Tenant): TenantSummary => ({
  tenant_id: t.tenant_id,
  slug: t.slug,
  display_name: t.display_name,
  tier: t.tier,
  region: t.region,
  provisioning_state: t.provisioning_state,
  is_active: t.is_active,
  provisioned_at: t.provisioned_at,
});

export class TenantsService {
  constructor(private readonly deps: TenantsServiceDeps) {}

  /** Starts provisioning (asynchronous) or resumes a failed one; 409 for an active or deprovisioned slug. */
  async createOrResume(input: NewTenantInput): Promise<TenantSummary> {
    return summary(await this.deps.admin.createOrResume(input));
  }

  async list(): Promise<TenantSummary[]> {
    return (await this.deps.store.listTenants()).map(summary);
  }

  /** 404 when no tenant has the slug. */
  status(slug: string): Promise<TenantStatus> {
    return this.deps.admin.status(slug);
  }

  /** Soft deactivation: no data is deleted, routing stops at once; 404 when no tenant has the slug. */
  deactivate(slug: string): Promise<void> {
    return this.deps.admin.deactivate(slug);
  }

  /** The initial admin key, once: 404 when already handed over, 409 before the tenant is active. */
  claimInitialKey(slug: string): Promise<{ email: string; api_key: string }> {
    return this.deps.admin.claimInitialKey(slug);
  }
}
