/**
 * Tenant administration (spec 3.1, 4.1): create or resume provisioning, deactivate, status,
 * and the one-time hand-over of the tenant admin's initial API key.
 */
import { AppError } from "../../../domain/errors.ts";
import type { ControlPlaneStore, JobQueue, Tenant } from "../../../domain/ports.ts";
import type { NewTenantInput, TenantAdminPort } from "../../../domain/tenants/ports.ts";
import type { TenantStatus } from "../../../domain/tenants/status.ts";
import { enqueueProvisioning } from "./saga.ts";
import { SETTING, type SecretSealer, STEPS } from "./steps.ts";

const RUNS = "provisioning.runs";

export class TenantLifecycle implements TenantAdminPort {
  constructor(
    private readonly store: ControlPlaneStore,
    private readonly queue: JobQueue,
    private readonly routing: { invalidate(tenantId: string): Promise<void> },
    private readonly sealer: SecretSealer,
  ) {}

  /**
   * New slug: reserve the row and start the pipeline. Failed tenant with the same slug:
   * resume from the last completed step. Still provisioning: nothing new starts.
   */
  async createOrResume(input: NewTenantInput): Promise<Tenant> {
    const existing = await this.store.getTenantBySlug(input.slug);
    if (existing) return this.resume(existing);
    let tenant: Tenant;
    try {
      tenant = await this.store.createTenant({
        slug: input.slug,
        display_name: input.display_name,
        tier: input.tier,
        region: input.region,
      });
    } catch (err) {
      // Lost a race for the slug: treat like a repeated POST.
      const raced = await this.store.getTenantBySlug(input.slug);
      if (raced) return this.resume(raced);
      throw err;
    }
    if (input.admin_email) await this.store.putTenantSetting(tenant.tenant_id, SETTING.adminEmail, input.admin_email);
    await this.start(tenant.tenant_id);
    return tenant;
  }

  private async resume(t: Tenant): Promise<Tenant> {
    if (t.provisioning_state === "provisioning") return t;
    if (t.provisioning_state === "active") {
      throw new AppError("conflict", `Tenant '${t.slug}' already exists and is active`);
    }
    if (t.provisioning_state === "deprovisioned") {
      throw new AppError("conflict", `Tenant '${t.slug}' was deprovisioned; its slug cannot be reused`);
    }
    const resumed = await this.store.transitionTenant(t.tenant_id, ["failed"], {
      provisioning_state: "provisioning",
      failed_steps: [],
    });
    if (!resumed) return (await this.store.getTenant(t.tenant_id)) ?? t; // a concurrent POST resumed it
    await this.start(t.tenant_id);
    return resumed;
  }

  private async start(tenantId: string): Promise<void> {
    const run = Number((await this.store.getTenantSetting(tenantId, RUNS)) ?? "0") + 1;
    await this.store.putTenantSetting(tenantId, RUNS, String(run));
    await enqueueProvisioning(this.queue, tenantId, run);
  }

  /** Soft-deactivates: no data is deleted; every instance stops routing at once. */
  async deactivate(slug: string): Promise<void> {
    const t = await this.store.getTenantBySlug(slug);
    if (!t) throw new AppError("not_found", `No tenant with slug '${slug}'`);
    await this.store.updateTenant(t.tenant_id, { provisioning_state: "deprovisioned", is_active: false });
    await this.routing.invalidate(t.tenant_id);
  }

  async status(slug: string): Promise<TenantStatus> {
    const t = await this.store.getTenantBySlug(slug);
    if (!t) throw new AppError("not_found", `No tenant with slug '${slug}'`);
    return {
      tenant_id: t.tenant_id,
      slug: t.slug,
      provisioning_state: t.provisioning_state,
      is_active: t.is_active,
      completed_steps: t.completed_steps,
      failed_steps: t.failed_steps,
      last_error: t.last_error,
      state_changed_at: t.state_changed_at,
      steps: STEPS.map((s) => ({
        id: s.id,
        name: s.name,
        status: t.completed_steps.includes(s.id) ? "completed" : t.failed_steps.includes(s.id) ? "failed" : "pending",
      })),
    };
  }

  /** Returns the tenant admin's initial API key once; later calls get 404. */
  async claimInitialKey(slug: string): Promise<{ email: string; api_key: string }> {
    const t = await this.store.getTenantBySlug(slug);
    if (!t) throw new AppError("not_found", `No tenant with slug '${slug}'`);
    if (!t.is_active) throw new AppError("conflict", `Tenant '${slug}' is not active yet`);
    const sealed = await this.store.getTenantSetting(t.tenant_id, SETTING.initialKeySealed);
    if (!sealed || !(await this.store.deleteTenantSetting(t.tenant_id, SETTING.initialKeySealed))) {
      throw new AppError("not_found", "The initial API key was already handed over");
    }
    const email = (await this.store.getTenantSetting(t.tenant_id, SETTING.adminEmail)) ?? `admin@${t.slug}.cairn.local`;
    return { email, api_key: this.sealer.open(sealed) };
  }
}
