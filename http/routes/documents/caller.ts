/** The verified caller of a documents route: its tenant and identity, and its access (barriers read now). */
import type { DocumentService } from "../../../domain/documents/service.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { TenantRef } from "../../../domain/tenants/namespaces.ts";

interface Ctx {
  get(key: "tenant"): { tenant_id: string; slug: string };
  get(key: "identity"): unknown;
}

export function callerOf(c: Ctx): { ref: TenantRef; identity: UserIdentity } {
  const tenant = c.get("tenant");
  return { ref: { tenantId: tenant.tenant_id, slug: tenant.slug }, identity: c.get("identity") as UserIdentity };
}

export async function accessOf(documents: DocumentService, identity: UserIdentity) {
  return documents.accessFor({ tenantId: identity.tenantId, userId: identity.user.id, roles: identity.roles });
}
