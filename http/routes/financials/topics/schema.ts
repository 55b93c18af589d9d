import { z } from "@hono/zod-openapi";
import { TOPIC_SOURCE_TYPES } from "../../../../domain/financials/topics.ts";

const IsoDate = z.iso.date().openapi({ format: "date" });

export const CikParam = z.object({
  cik: z
    .string()
    .regex(/^\d{1,10}$/)
    .openapi({ example: "354950", description: "SEC CIK, with or without leading zeros" }),
});

export const ExtractedTopicsQuery = z
  .object({
    date_from: IsoDate.optional().openapi({ description: "Default: three years before today" }),
    date_to: IsoDate.optional().openapi({ description: "Default: today" }),
    source_type: z
      .enum(TOPIC_SOURCE_TYPES)
      .default("all")
      .openapi({ description: "transcript (earnings calls), filing (8-K bodies and EX-99 exhibits) or all" }),
    limit: z.coerce.number().int().min(1).max(100).default(30),
  })
  .refine((q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, {
    message: "date_from must be on or before date_to",
    path: ["date_from"],
  });

const ExtractedTopic = z
  .object({
    topic_name: z.string(),
    doc_count: z.number().int(),
    avg_importance: z.number().openapi({ description: "Mean of per-document importance, 0..1" }),
    avg_sentiment: z.number().openapi({ description: "Mean Loughran-McDonald net tone, -1..1" }),
    latest_date: z.string().openapi({ format: "date" }),
    earliest_date: z.string().openapi({ format: "date" }),
  })
  .openapi("ExtractedTopic");

export const ExtractedTopicsResponse = z
  .object({
    cik: z.string().openapi({ description: "10-digit, zero-padded" }),
    period: z.object({
      date_from: z.string().openapi({ format: "date" }),
      date_to: z.string().openapi({ format: "date" }),
    }),
    topics: z.array(ExtractedTopic),
    company_name: z.string().nullable(),
  })
  .openapi("ExtractedTopics");

export const EmergingIdParam = z.object({
  emerging_topic_id: z.coerce.number().int().min(1).max(2_147_483_647),
});

export const EmergingCompaniesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const EmergingCompaniesResponse = z
  .object({
    emerging_topic_id: z.number().int(),
    emerging_topic_name: z.string(),
    companies: z.array(
      z.object({
        cik: z.string(),
        doc_count: z.number().int(),
        company_name: z.string().openapi({ description: "Empty when unknown" }),
        ticker: z.string().openapi({ description: "Empty when unknown" }),
        latest_date: z.string().openapi({ format: "date" }),
      }),
    ),
  })
  .openapi("EmergingTopicCompanies");

export const EmergingTopicList = z
  .object({
    emerging_topics: z.array(
      z.object({
        emerging_topic_id: z.number().int(),
        emerging_topic_name: z.string(),
        lift: z.number().openapi({ description: "Recent document share over baseline share (smoothed)" }),
        recent_share: z.number(),
        baseline_share: z.number(),
        recent_doc_count: z.number().int(),
        window_start: z.string().openapi({ format: "date" }),
        window_end: z.string().openapi({ format: "date" }),
        baseline_start: z.string().openapi({ format: "date" }),
        detected_at: z.string().openapi({ format: "date-time" }),
      }),
    ),
  })
  .openapi("EmergingTopicList");
