export { FaultInjector, type FaultKind } from "./faults.ts";
export { TenantLifecycle } from "./lifecycle.ts";
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
  SETTING,
  type SecretSealer,
  STEPS,
  type Step,
} from "./steps.ts";
