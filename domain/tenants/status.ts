/** The provisioning status of a tenant as reported by GET /v1/admin/tenants/{slug}/status. */
import type { ProvisioningState } from "../ports.ts";

export interface TenantStatus {
  tenant_id: string;
  slug: string;
  provisioning_state: ProvisioningState;
  is_active: boolean;
  completed_steps: string[];
  failed_steps: string[];
  last_error: string | null;
  state_changed_at: string;
  steps: { id: string; name: string; status: "completed" | "failed" | "pending" }[];
}
