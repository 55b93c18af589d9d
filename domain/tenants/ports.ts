/**
 * What the tenants area needs from the engines: tenant administration (implemented by
 * pipelines/tenants/provisioning TenantLifecycle), the routing lookup every guarded request
 * makes (implemented by the tenant actor, actors/tenants), and the control plane's list.
 */
import type { Tenant, TenantTier } from "../ports.ts";
import type { TenantStatus } from "./status.ts";

export interface TenantResolver {
  /** The tenant when active; throws AppError tenant_inactive / not_found otherwise. */
  resolve(tenantId: string): Promise<Tenant>;
  invalidate(tenantId: string): Promise<void>;
}

export interface NewTenantInput {
  slug: string;
  display_name: string;
  tier: TenantTier;
  region: string;
  admin_email?: string;
}

/** Tenant administration (implemented by pipelines/tenants/provisioning TenantLifecycle). */
export interface TenantAdminPort {
  createOrResume(input: NewTenantInput): Promise<Tenant>;
  deactivate(slug: string): Promise<void>;
  status(slug: string): Promise<TenantStatus>;
  claimInitialKey(slug: string): Promise<{ email: string; api_key: string }>;
}

/** Every tenant, whatever its state (ControlPlaneStore implements it). */
export interface TenantListing {
  listTenants(): Promise<Tenant[]>;
}
