/**
 * The "sec-ingest" queue: a job ingests a local directory or refreshes CIKs online. The
 * payload is validated here (the queue is an edge); a failure throws so the queue retries
 * it with backoff, and per-source problems are reported in the job result.
 */
import type { Logger } from "pino";
import { z } from "zod";
import type { FinancialsStore } from "../../../domain/financials/ports.ts";
import type { JobHandler, JsonValue } from "../../../domain/ports.ts";
import type { SecClient } from "./client.ts";
import { ingestSecDirectory } from "./directory.ts";
import { loadPriceBook } from "./market.ts";
import { ingestSecOnline } from "./online.ts";

export const SEC_INGEST_QUEUE = "sec-ingest";

export const SecIngestJob = z.union([
  z.object({
    dir: z.string().min(1),
    market_dir: z.string().min(1).nullable().optional(),
    force: z.boolean().optional(),
  }),
  z.object({
    ciks: z
      .array(z.string().regex(/^\d{1,10}$/))
      .min(1)
      .max(1000),
    force: z.boolean().optional(),
  }),
]);
export type SecIngestJob = z.infer<typeof SecIngestJob>;

export interface SecIngestDeps {
  store: FinancialsStore;
  /** Null unless CAIRN_SEC_ONLINE=1: jobs naming CIKs then fail without retrying pointlessly. */
  client: SecClient | null;
  marketDir: string | null;
  logger: Logger;
}

export function makeSecIngestHandler(deps: SecIngestDeps): JobHandler {
  return async (job) => {
    const parsed = SecIngestJob.safeParse(job.data);
    if (!parsed.success) throw new Error(`invalid sec-ingest job: ${parsed.error.issues[0]?.message ?? "bad payload"}`);
    const data = parsed.data;
    const report =
      "dir" in data
        ? await ingestSecDirectory(data.dir, deps.store, {
            marketDir: data.market_dir === undefined ? undefined : data.market_dir,
            force: data.force,
            logger: deps.logger,
          })
        : await (async () => {
            if (!deps.client)
              throw new Error("online SEC ingest is off (set CAIRN_SEC_ONLINE=1 and CAIRN_SEC_USER_AGENT)");
            return ingestSecOnline(deps.client, deps.store, data.ciks, {
              prices: loadPriceBook(deps.marketDir),
              force: data.force,
              logger: deps.logger,
            });
          })();
    const count = (xs: { status: string }[], s: string) => xs.filter((x) => x.status === s).length;
    return {
      submissions: {
        ingested: count(report.submissions, "ingested"),
        unchanged: count(report.submissions, "unchanged"),
      },
      companyfacts: {
        ingested: count(report.companyfacts, "ingested"),
        unchanged: count(report.companyfacts, "unchanged"),
      },
      segments: { ingested: count(report.segments, "ingested"), unchanged: count(report.segments, "unchanged") },
      errors: report.errors.map((e): JsonValue => ({ source: e.source, error: e.error })),
    };
  };
}
