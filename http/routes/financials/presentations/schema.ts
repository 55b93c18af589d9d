import { z } from "@hono/zod-openapi";
import { ACCESSION_RE } from "../../../../domain/financials/presentations.ts";

export const AccessionParam = z.object({
  accession_number: z.string().regex(ACCESSION_RE).openapi({ example: "0001213900-25-032135" }),
});

export const PresentationBody = z
  .object({
    accession_number: z.string(),
    cik: z.string().nullable(),
    ticker: z.string().nullable(),
    company_name: z.string().nullable(),
    form_type: z.string().nullable(),
    exhibit_type: z.string().nullable().openapi({ example: "EX-99.1" }),
    doc_type_label: z
      .string()
      .nullable()
      .openapi({ description: "Investor presentation, Press release, Exhibit 99 or Current report" }),
    published_at: z.string().nullable().openapi({ format: "date", description: "Filing date" }),
    sec_url: z.string().nullable(),
    s3_url: z
      .string()
      .nullable()
      .openapi({ description: "Null: exhibits are kept in the database, not object storage" }),
    markdown: z.string().nullable(),
  })
  .openapi("Presentation");
