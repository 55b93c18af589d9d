import { z } from "@hono/zod-openapi";

export const UserProfile = z
  .object({
    id: z.number().int(),
    email: z.string(),
    name: z.string(),
    tier: z.enum(["free", "pro", "enterprise"]),
    email_verified: z.boolean(),
    created_at: z.string().openapi({ format: "date-time" }),
    limits: z.object({
      req_per_min: z.number().int(),
      req_per_day: z.number().int(),
      api_keys: z.number().int(),
      history_retention_years: z.number().int(),
      filings_per_query: z.number().int(),
    }),
    current_usage: z.object({ today: z.number().int(), this_month: z.number().int() }),
  })
  .openapi("UserProfile");

export const ApiKeyInfo = z
  .object({
    id: z.string().uuid(),
    prefix: z.string(),
    label: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .openapi("ApiKey");

export const NewApiKeyBody = z.object({ label: z.string().trim().min(1).max(100).default("default") }).strict();

export const CreatedApiKey = ApiKeyInfo.extend({
  key: z.string().openapi({ description: "The key itself; shown once, only its hash is stored" }),
}).openapi("CreatedApiKey");
