/**
 * The "lakehouse-sync" job as both sides see it: the service queues it (POST
 * /v1/admin/lakehouse/sync-targets/{id}/run) and pipelines/lakehouse/sync runs it.
 */
import { z } from "zod";

export const LAKEHOUSE_SYNC_QUEUE = "lakehouse-sync";

/** The job's payload: which sync target to run. */
export const SyncJobData = z.object({ sync_target_id: z.string().uuid() });
export type SyncJobData = z.infer<typeof SyncJobData>;
