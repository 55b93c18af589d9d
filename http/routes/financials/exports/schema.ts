/** Request and response schemas of the export and share routes (spec 4.4, tool endpoints). */
import { z } from "@hono/zod-openapi";
import { COMPS_METRICS, COMPS_PERIODS, DEFAULT_COMPS_METRICS } from "../../../../domain/financials/exports/index.ts";
import { PERIODS } from "../../../../domain/financials/fields.ts";

export const XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

const CIK_RE = /^\d{1,10}$/;
const cik = z
  .string()
  .regex(CIK_RE)
  .openapi({ example: "320193", description: "SEC CIK, with or without leading zeros" });

export const CikParam = z.object({ cik });

const fiscalYear = z.number().int().min(1900).max(2200);

export const FinancialsExportQuery = z.object({
  period: z
    .enum(PERIODS)
    .optional()
    .openapi({ description: "FY: annual sheets only; Q1..Q4: that quarter on the quarterly sheets only" }),
  fiscal_year: z.coerce.number().int().min(1900).max(2200).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(40)
    .default(8)
    .openapi({ description: "Most recent periods per sheet (spec range 1 to 40)" }),
});

/** Refuses repeated entries, naming the position of each repeat. */
function noRepeats<T>(key: (v: T) => string, what: string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = key(item);
      if (seen.has(k)) ctx.addIssue({ code: "custom", path: [i], message: `Duplicate ${what}`, input: item });
      seen.add(k);
    });
  };
}

const stripZeros = (c: string) => c.replace(/^0+(?=\d)/, "");

const compsFields = {
  ciks: z
    .array(cik)
    .min(2)
    .max(25)
    .superRefine(noRepeats<string>(stripZeros, "CIK"))
    .openapi({ description: "2 to 25 companies, one row each, in this order" }),
  metrics: z
    .array(z.enum(COMPS_METRICS as [string, ...string[]]))
    .min(1)
    .max(60)
    .superRefine(noRepeats<string>((m) => m, "metric"))
    .default([...DEFAULT_COMPS_METRICS])
    .openapi({ description: `Columns, in this order. Default: ${DEFAULT_COMPS_METRICS.join(", ")}` }),
  period: z.enum(COMPS_PERIODS).default("FY").openapi({
    description:
      "FY or Q1..Q4: that fiscal period (of fiscal_year, else each company's newest); latest: each company's newest period, annual or quarterly",
  }),
  fiscal_year: fiscalYear.optional(),
};

export const CompsBody = z.object(compsFields).strict().openapi("CompsExportRequest");

const FinancialsAttachment = z
  .object({
    kind: z.literal("financials"),
    cik,
    period: z.enum(PERIODS).optional(),
    fiscal_year: fiscalYear.optional(),
    limit: z.number().int().min(1).max(40).default(8),
  })
  .strict();

const CompsAttachment = z.object({ kind: z.literal("comps"), ...compsFields }).strict();

// No control characters at all: CR/LF in a header is how header injection starts, and a
// subject has no use for tabs or Unicode line separators either.
const ONE_LINE = /^[^\p{Cc}\p{Zl}\p{Zp}]*$/u;

export const ShareEmailBody = z
  .object({
    to: z
      .array(z.email().max(254))
      .min(1)
      .max(20)
      .superRefine(noRepeats<string>((a) => a.toLowerCase(), "recipient"))
      .openapi({ description: "1 to 20 bare addresses (no display names)" }),
    subject: z.string().trim().min(1).max(200).regex(ONE_LINE),
    message: z.string().trim().min(1).max(20_000).openapi({ description: "Plain text body" }),
    attachment: z
      .discriminatedUnion("kind", [FinancialsAttachment, CompsAttachment])
      .optional()
      .openapi({ description: "A workbook built exactly as the matching export endpoint builds it" }),
  })
  .strict()
  .openapi("ShareEmailRequest");

export const ShareEmailResult = z
  .object({
    message_id: z.string(),
    accepted: z.array(z.string()),
    rejected: z.array(z.string()),
  })
  .openapi("ShareEmailResult");

export const XlsxResponse = {
  description: "The workbook (attachment)",
  headers: z.object({
    "Content-Disposition": z
      .string()
      .openapi({ example: 'attachment; filename="cairn-financials-AAPL-20240105.xlsx"' }),
  }),
  content: { [XLSX_MEDIA_TYPE]: { schema: z.string().openapi({ format: "binary" }) } },
};
