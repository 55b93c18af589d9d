/** The caller's tenant as the rtdb service scopes it (the tenant guard resolved it as active). */
import type { TenantRef } from "../../../domain/tenants/namespaces.ts";

export function tenantOf(c: { get(key: "tenant"): { tenant_id: string; slug: string } }): TenantRef {
  const tenant = c.get("tenant");
  return { tenantId: tenant.tenant_id, slug: tenant.slug };
}
