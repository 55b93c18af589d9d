/**
 * Runs the provisioning steps for one tenant as a durable job. Completed steps are
 * checkpointed in the tenant row; a failure records the step and error and halts (the
 * tenant becomes `failed`); a crash leaves the job to the queue, which runs it again on
 * restart, and the completed steps are skipped.
 */
import type { Logger } from "pino";
import type { ControlPlaneStore, JobQueue, Tenant } from "../../../domain/ports.ts";
import type { FaultInjector } from "./faults.ts";
import { STEPS, type StepContext } from "./steps.ts";

export const PROVISIONING_QUEUE = "provisioning";

export interface ProvisioningDeps extends Omit<StepContext, "tenant" | "ref"> {
  faults: FaultInjector;
  logger: Logger;
}

export type ProvisioningOutcome = "active" | "failed" | "stopped";

export async function runProvisioning(tenantId: string, d: ProvisioningDeps): Promise<ProvisioningOutcome> {
  const log = d.logger.child({ tenant_id: tenantId, pipeline: "provisioning" });
  for (const step of STEPS) {
    const tenant = await d.store.getTenant(tenantId);
    if (!tenant) throw new Error(`tenant ${tenantId} does not exist`);
    // Deactivated (or finished by another run) while we worked: stop without touching it.
    if (tenant.provisioning_state !== "provisioning") return "stopped";
    if (tenant.completed_steps.includes(step.id)) continue;
    const started = performance.now();
    try {
      d.faults.before(step.id);
      await step.run({ ...d, tenant, ref: { tenantId, slug: tenant.slug } });
      d.faults.after(step.id);
    } catch (err) {
      const message = `${step.id} (${step.name}): ${err instanceof Error ? err.message : String(err)}`;
      log.warn({ step: step.id, err }, "provisioning step failed");
      await d.store.transitionTenant(tenantId, ["provisioning"], {
        provisioning_state: "failed",
        failed_steps: [step.id],
        last_error: message,
      });
      return "failed";
    }
    await checkpoint(d.store, tenant, step.id);
    log.info({ step: step.id, name: step.name, ms: Math.round(performance.now() - started) }, "provisioning step done");
  }
  return "active";
}

async function checkpoint(store: ControlPlaneStore, tenant: Tenant, stepId: string): Promise<void> {
  const fresh = (await store.getTenant(tenant.tenant_id)) ?? tenant;
  if (fresh.completed_steps.includes(stepId)) return;
  await store.transitionTenant(tenant.tenant_id, ["provisioning", "active"], {
    completed_steps: [...fresh.completed_steps, stepId],
  });
}

/** Starts the queue worker that runs provisioning jobs. */
export function startProvisioningWorker(queue: JobQueue, d: ProvisioningDeps) {
  return queue.work(
    PROVISIONING_QUEUE,
    async (job) => {
      const data = job.data as { tenant_id?: unknown };
      if (typeof data?.tenant_id !== "string") throw new Error("provisioning job without tenant_id");
      const outcome = await runProvisioning(data.tenant_id, d);
      return { tenant_id: data.tenant_id, outcome };
    },
    { concurrency: 2 },
  );
}

/** Enqueues a run; the job id makes a double enqueue of the same run a no-op. */
export async function enqueueProvisioning(queue: JobQueue, tenantId: string, run: number): Promise<string> {
  const job = await queue.enqueue(
    PROVISIONING_QUEUE,
    "provision",
    { tenant_id: tenantId },
    // Step failures are recorded, not retried; further attempts only cover crashes.
    { jobId: `provision-${tenantId}-${run}`, attempts: 5, backoffMs: 500 },
  );
  return job.id;
}
