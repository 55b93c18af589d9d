/**
 * The validation hook of the lakehouse routes, which blanks storage credentials before the
 * section 7 body echoes inputs back (who may manage a tenant's lakehouse is the service's
 * call: domain/lakehouse/service.ts).
 */
import type { z } from "@hono/zod-openapi";
import { AppError } from "../../../domain/errors.ts";
import { toValidationIssues } from "../../validation.ts";
import { SECRET_FIELDS } from "./schema.ts";

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
