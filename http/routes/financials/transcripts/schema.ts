import { z } from "@hono/zod-openapi";

const IsoDate = z.iso.date().openapi({ format: "date", example: "2021-11-16" });

export const TranscriptsQuery = z
  .object({
    ticker: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9.-]{0,9}$/)
      .optional()
      .openapi({ example: "HD", description: "Case-insensitive" }),
    fiscal_year: z.coerce.number().int().min(1900).max(2100).optional(),
    fiscal_quarter: z.coerce.number().int().min(1).max(4).optional(),
    from_date: IsoDate.optional().openapi({ description: "Calls on or after this date (undated calls never match)" }),
    to_date: IsoDate.optional().openapi({ description: "Calls on or before this date (undated calls never match)" }),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .refine((q) => !q.from_date || !q.to_date || q.from_date <= q.to_date, {
    message: "from_date must be on or before to_date",
    path: ["from_date"],
  });

const Executive = z.object({ name: z.string(), title: z.string().nullable() }).openapi("TranscriptExecutive");
const Analyst = z.object({ name: z.string(), firm: z.string().nullable() }).openapi("TranscriptAnalyst");

export const TranscriptSummary = z
  .object({
    doc_id: z.string().openapi({ description: "UUID v5 of ticker and fiscal period: stable across re-ingests" }),
    ticker: z.string().nullable(),
    exchange: z.string().nullable().openapi({ description: "Null unless the reference data names it" }),
    company_name: z.string().nullable(),
    call_date: z.string().nullable().openapi({ format: "date", description: "Null when the transcript states none" }),
    fiscal_year: z.number().int().nullable(),
    fiscal_quarter: z.number().int().nullable(),
    period_label: z.string().nullable().openapi({ example: "Q3 2021" }),
    executives: z.array(Executive),
    analysts: z.array(Analyst),
    total_words: z.number().int().nullable(),
    total_utterances: z.number().int().nullable(),
    executive_word_count: z.number().int().nullable(),
    analyst_word_count: z.number().int().nullable(),
    market_cap_usd: z.number().nullable(),
    stock_price_at_close: z.number().nullable(),
    indexed_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("TranscriptSummary");

export const TranscriptPage = z
  .object({
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    transcripts: z.array(TranscriptSummary),
  })
  .openapi("TranscriptPage");
