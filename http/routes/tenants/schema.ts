import { z } from "@hono/zod-openapi";
import { PROVISIONING_STATES, TENANT_TIERS } from "../../../domain/ports.ts";

export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const NewTenantBody = z
  .object({
    slug: z
      .string()
      .regex(SLUG_RE)
      .openapi({ example: "acme-capital", description: "URL-safe: a-z, 0-9 and inner hyphens, at most 63" }),
    display_name: z.string().trim().min(1).max(200),
    tier: z.enum(TENANT_TIERS),
    region: z
      .string()
      .regex(/^[a-z0-9-]{2,32}$/)
      .openapi({ example: "eu-west-1" }),
    admin_email: z.email().optional().openapi({ description: "E-mail of the tenant admin created by step 8" }),
  })
  .strict()
  .openapi("NewTenant");

export const TenantSummary = z
  .object({
    tenant_id: z.string().uuid(),
    slug: z.string(),
    display_name: z.string(),
    tier: z.enum(TENANT_TIERS),
    region: z.string(),
    provisioning_state: z.enum(PROVISIONING_STATES),
    is_active: z.boolean(),
    provisioned_at: z.string(),
  })
  .openapi("TenantSummary");

export const TenantStatus = z
  .object({
    tenant_id: z.string().uuid(),
    slug: z.string(),
    provisioning_state: z.enum(PROVISIONING_STATES),
    is_active: z.boolean(),
    completed_steps: z.array(z.string()),
    failed_steps: z.array(z.string()),
    last_error: z.string().nullable(),
    state_changed_at: z.string(),
    steps: z.array(z.object({ id: z.string(), name: z.string(), status: z.enum(["completed", "failed", "pending"]) })),
  })
  .openapi("TenantStatus");

export const SlugParam = z.object({ slug: z.string().min(1).max(63) });
