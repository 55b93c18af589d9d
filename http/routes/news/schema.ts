/** Request and response schemas of the news REST routes (spec 2.11, 4.4, 6.1 filter fields). */
import { z } from "@hono/zod-openapi";
import { SENTIMENT_LABELS, SOURCE_TYPES } from "../../../domain/news/types.ts";
import { decodeCursor } from "./cursor.ts";

const jsonList = (example: string, description: string) =>
  z.string().openapi({ example, description: `${description}: a JSON-encoded array carried as a string (spec 2.11)` });

/** The stream's article object (spec 2.11), also the REST body: every value a string. */
export const NewsArticle = z
  .object({
    article_id: z.string().uuid(),
    url: z.string().openapi({ example: "https://www.nasdaq.com/articles/dow-shake-up-explained-2020-08-26" }),
    title: z.string(),
    snippet: z
      .string()
      .openapi({ description: "The first 240 characters of the text (empty when the source has none)" }),
    summary: z.string().openapi({ description: "The lead sentences, up to 480 characters (empty when no text)" }),
    source_name: z.string().openapi({ example: "Nasdaq" }),
    source_type: z.enum(SOURCE_TYPES),
    published_at: z.string().openapi({ example: "2020-08-26T21:49:00+00:00", description: "ISO 8601, UTC offset" }),
    categories: jsonList('["earnings","markets"]', "Category slugs"),
    country_codes: jsonList('["US"]', "ISO 3166-1 alpha-2 codes"),
    company_tickers: jsonList('["AAPL","TSLA"]', "Tickers (primary listing)"),
    company_names: jsonList('["Apple Inc.","Tesla, Inc."]', "Company names"),
    sentiment_label: z.enum(SENTIMENT_LABELS),
    sentiment_score: z.string().openapi({ example: "0.4621", description: "Decimal -1..1 as a string" }),
    impact_score: z.string().openapi({ example: "0.73", description: "Decimal 0..1 as a string" }),
    impact_label: z.string().openapi({ example: "high", description: "low, medium or high" }),
  })
  .openapi("NewsArticle");

export const ArticleIdParam = z.object({
  article_id: z
    .string()
    .uuid()
    .openapi({ param: { name: "article_id", in: "path" }, example: "2f1d7a3e-5b0c-5e8a-9c41-7d2b6e0f4a13" }),
});

/** "a,b, c" → ["a", "b", "c"]; repeated parameters arrive joined the same way. */
const csv = <T extends string>(item: z.ZodType<T, string>, max: number, description: string) =>
  z
    .string()
    .optional()
    .transform((v) =>
      v === undefined
        ? undefined
        : v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
    )
    .pipe(z.array(item).max(max).optional())
    .openapi({ type: "string", description: `${description}; comma-separated, any one matches (OR)` });

const instant = z
  .string()
  .refine(
    (v) =>
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(v) && !Number.isNaN(Date.parse(v)),
    {
      message: "Input should be an ISO 8601 date or a date-time with a UTC offset",
    },
  );

export const NewsListQuery = z
  .object({
    tickers: csv(
      z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9.-]{0,9}$/)
        .transform((t) => t.toUpperCase()),
      50,
      "Tickers, e.g. AAPL,MSFT",
    ),
    categories: csv(z.string().regex(/^[a-z_]{1,40}$/), 20, "Category slugs, e.g. earnings,mergers_acquisitions"),
    countries: csv(
      z
        .string()
        .regex(/^[A-Za-z]{2}$/)
        .transform((c) => c.toUpperCase()),
      50,
      "ISO-2 country codes, e.g. US,GB",
    ),
    sentiment: z.enum(SENTIMENT_LABELS).optional(),
    min_impact: z.coerce.number().min(0).max(1).optional().openapi({ description: "Minimum impact score, 0.0 to 1.0" }),
    source_types: csv(z.enum(SOURCE_TYPES), 4, "Source types: rss, gdelt, reddit, twitter"),
    from: instant.optional().openapi({ description: "published_at on or after (ISO date or date-time with offset)" }),
    to: instant.optional().openapi({ description: "published_at before (exclusive)" }),
    cursor: z
      .string()
      .refine((v) => decodeCursor(v) !== null, { message: "Invalid cursor: pass next_cursor from a previous page" })
      .optional()
      .openapi({ description: "next_cursor of the previous page (opaque)" }),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    message: "from must be before to",
    path: ["from"],
  });

export const NewsPage = z
  .object({
    articles: z.array(NewsArticle),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as cursor for the next page; null on the last page" }),
  })
  .openapi("NewsPage");
