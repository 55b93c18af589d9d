export { BullJobQueue, type BullQueueOptions } from "./bullmq.ts";
export { EmbeddedJobQueue, type EmbeddedQueueOptions } from "./embedded.ts";
export { JOB_QUEUE_MIGRATIONS } from "./embedded-store.ts";
export type { QueueLogger } from "./shared.ts";
