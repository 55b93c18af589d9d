/** Request and response schemas of the financial data routes (spec 2.13, 2.14, 4.4, 8.2). */
import { z } from "@hono/zod-openapi";
import {
  INCOME_FIELDS,
  type IncomeField,
  PERIODS,
  RATIO_FIELDS,
  type RatioField,
} from "../../../domain/financials/fields.ts";

export const CikParam = z.object({
  cik: z
    .string()
    .regex(/^\d{1,10}$/)
    .openapi({
      param: { name: "cik", in: "path" },
      example: "320193",
      description: "SEC CIK, with or without leading zeros",
    }),
});

/** fiscal_year, period and limit (default 8, 1..40) of the ratio and income routes. */
export const StatementQuery = z.object({
  fiscal_year: z.coerce.number().int().min(1900).max(2100).optional().openapi({ example: 2024 }),
  period: z.enum(PERIODS).optional().openapi({ description: "FY for fiscal years, Q1..Q4 for quarters" }),
  limit: z.coerce.number().int().min(1).max(40).default(8),
});

const date = (description: string) => z.string().nullable().openapi({ format: "date", description });
const num = () => z.number().nullable();

const incomeNumbers = Object.fromEntries(INCOME_FIELDS.map((f) => [f, num()])) as Record<
  IncomeField,
  ReturnType<typeof num>
>;

export const IncomeStatement = z
  .object({
    cik: z.string().nullable(),
    ticker: z.string().nullable(),
    fiscal_period_code: z.string().nullable().openapi({ example: "Q2", description: "FY, Q1, Q2, Q3 or Q4" }),
    period_type: z.string().nullable().openapi({ example: "quarterly", description: "annual or quarterly" }),
    report_period: date("Last day of the period"),
    fiscal_year: z.number().int().nullable(),
    accession_number: z.string().openapi({ description: "The reference filing (the 10-K for a derived Q4)" }),
    ...incomeNumbers,
  })
  .openapi("IncomeStatement");

const ratioNumbers = Object.fromEntries(RATIO_FIELDS.map((f) => [f, num()])) as Record<
  RatioField,
  ReturnType<typeof num>
>;

export const FinancialRatios = z
  .object({
    cik: z.string().nullable(),
    ticker: z.string().nullable(),
    fiscal_period: z.string().nullable().openapi({ example: "FY" }),
    period: z.string().nullable().openapi({ example: "annual", description: "annual or quarterly" }),
    currency: z.string().nullable().openapi({ example: "USD" }),
    report_period: date("Last day of the period"),
    fiscal_year: z.number().int().nullable(),
    market_cap_is_trailing: z.boolean().nullable().openapi({
      description:
        "true: valued at the close on or before report_period; false: at the first close after it; null: no price",
    }),
    accession_number: z.string(),
    ...ratioNumbers,
  })
  .openapi("FinancialRatios");

export const CompanyFactsBody = z
  .object({
    cik: z.string().openapi({ example: "0000320193" }),
    name: z.string().nullable(),
    ticker: z.string().nullable(),
    tickers: z.array(z.string()),
    exchanges: z.array(z.string()),
    sic: z.string().nullable(),
    sic_description: z.string().nullable(),
    fiscal_year_end: z.string().nullable().openapi({ example: "0926", description: "MMDD" }),
    state_of_incorporation: z.string().nullable(),
    facts: z.array(
      z.object({
        concept: z.string(),
        taxonomy: z.string(),
        unit: z.string(),
        value: z.number(),
        period_end: z.string().openapi({ format: "date" }),
        accession_number: z.string(),
      }),
    ),
  })
  .openapi("CompanyFacts");

export const RevenueSegments = z
  .object({
    cik: z.string(),
    ticker: z.string().nullable(),
    accession_number: z.string().nullable(),
    fiscal_year: z.number().int().nullable(),
    fiscal_period: z.string().nullable(),
    period_type: z.string().openapi({ description: "annual or quarterly" }),
    period_start: z.string().openapi({ format: "date" }),
    report_period: z.string().openapi({ format: "date" }),
    currency: z.string(),
    concept: z.string(),
    axis: z.string().openapi({ example: "srt:ProductOrServiceAxis" }),
    segments: z.array(z.object({ member: z.string(), label: z.string(), revenue: z.number() })),
  })
  .openapi("RevenueSegments");
