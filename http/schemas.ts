/** Shared OpenAPI schemas: error bodies and the standard error responses of a route. */
import { z } from "@hono/zod-openapi";

export const ErrorBody = z.object({ detail: z.string().openapi({ example: "Invalid API key" }) }).openapi("Error");

export const ValidationBody = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.string()),
        msg: z.string(),
        type: z.string(),
        input: z.any(),
        ctx: z.record(z.string(), z.any()),
      }),
    ),
  })
  .openapi("ValidationError");

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** Error responses every authenticated route can give. */
export const AUTH_ERRORS = {
  401: json(ErrorBody, "Missing or invalid credentials"),
  403: json(ErrorBody, "Valid identity without rights, or tenant not active"),
  422: json(ValidationBody, "Invalid parameters"),
  429: json(ErrorBody, "Rate limit exceeded (see Retry-After and X-RateLimit-* headers)"),
} as const;

export { json };
