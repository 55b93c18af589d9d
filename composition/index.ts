/** The composition root's wiring, split by responsibility; `main.ts` re-exports this. */
export {
  asDocumentIndex,
  openControlPlane,
  openCounters,
  openDocumentIndex,
  openFinancials,
  openJobQueue,
  openMailer,
  openObjectStore,
  openPubSub,
  openTimeSeries,
} from "./engines.ts";
export { buildService, type Service, type ServiceOptions } from "./service.ts";
