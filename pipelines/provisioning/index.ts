export { type FaultKind, FaultInjector } from "./faults.ts";
export {
  enqueueProvisioning,
  PROVISIONING_QUEUE,
  type ProvisioningDeps,
  type ProvisioningOutcome,
  runProvisioning,
  startProvisioningWorker,
} from "./saga.ts";
export {
  DEFAULT_ROLES,
  type DefaultCatalogWriter,
  type ProvisioningEngines,
  type SecretSealer,
  SETTING,
  STEPS,
  type Step,
} from "./steps.ts";
export { type NewTenantInput, TenantLifecycle, type TenantStatus } from "./lifecycle.ts";
