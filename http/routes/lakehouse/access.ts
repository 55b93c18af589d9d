/**
 * Who may manage a tenant's lakehouse: users of that tenant, writes by its owners only.
 * Also the validation hook of these routes, which blanks storage credentials before the
 * section 7 body echoes inputs back.
 */
import type { z } from "@hono/zod-openapi";
import { AppError } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { Tenant } from "../../../domain/ports.ts";
import type { AppDeps } from "../../deps.ts";
import { toValidationIssues } from "../../validation.ts";
import { SECRET_FIELDS } from "./schema.ts";

export const OWNER_ROLE = "owner";

/**
 * The tenant, when the caller may act on it: 404 for an unknown tenant, 403 for another
 * tenant's or, when `owner` is required, for a user without the owner role.
 */
export async function tenantForCaller(
  deps: AppDeps,
  identity: UserIdentity,
  tenantId: string,
  need: "owner" | "member",
): Promise<Tenant> {
  const tenant = await deps.store.getTenant(tenantId);
  if (!tenant) throw new AppError("not_found", `No tenant ${tenantId}`);
  if (identity.tenantId !== tenant.tenant_id) {
    throw new AppError("forbidden", "A user manages only the lakehouse of their own tenant");
  }
  if (need === "owner" && !identity.roles.includes(OWNER_ROLE)) {
    throw new AppError("forbidden", `Requires the ${OWNER_ROLE} role in tenant ${tenant.slug}`);
  }
  return tenant;
}

function redact(data: unknown): unknown {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
  const copy: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const f of SECRET_FIELDS) if (copy[f] !== undefined && copy[f] !== null) copy[f] = "[redacted]";
  return copy;
}

/** Route hook: the default section 7 body, with credential inputs replaced by "[redacted]". */
export function redactingHook(
  result: { success: true; target: string } | { success: false; target: string; error: z.ZodError },
): undefined {
  if (!result.success) {
    const data = (result as { data?: unknown }).data;
    throw AppError.validation(toValidationIssues(result.error.issues, result.target, redact(data)));
  }
  return undefined;
}
