/** Request and response shapes of the information-barrier admin API (docs/decisions.md). */
import { z } from "@hono/zod-openapi";

export const BarrierIdParam = z.object({ barrier_id: z.string().uuid() });
export const CrossingParam = z.object({
  barrier_id: z.string().uuid(),
  identity_id: z.string().regex(/^[1-9][0-9]{0,15}$/, "an identity id (the user's numeric id)"),
});

export const NewBarrierBody = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ example: "Project Falcon (sell side)" }),
    description: z.string().max(2000).default(""),
  })
  .strict()
  .openapi("NewBarrier");

export const CrossingBody = z
  .object({
    identity_id: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, "an identity id (the user's numeric id)")
      .openapi({ example: "42" }),
  })
  .strict()
  .openapi("NewBarrierCrossing");

export const BarrierRecord = z
  .object({
    barrier_id: z.string().uuid(),
    tenant_id: z.string().uuid(),
    name: z.string(),
    description: z.string(),
    created_at: z.string(),
    created_by: z.string(),
    crossings: z.number().int().openapi({ description: "identities that have crossed it now" }),
  })
  .openapi("Barrier");

export const CrossingRecord = z
  .object({
    barrier_id: z.string().uuid(),
    identity_id: z.string(),
    crossed_at: z.string(),
    crossed_by: z.string(),
    revoked_at: z.string().nullable(),
    revoked_by: z.string().nullable(),
  })
  .openapi("BarrierCrossing");

export const BarrierDetail = BarrierRecord.extend({ crossed_by: z.array(CrossingRecord) }).openapi("BarrierDetail");

export const HistoryQuery = z.object({
  include_revoked: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .openapi({ description: "also list revoked crossings (the audit trail)" }),
});
