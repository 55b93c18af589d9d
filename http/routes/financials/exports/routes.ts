/**
 * Spreadsheet downloads and e-mail sharing (spec 4.4, the tool endpoints):
 * GET /v1/export/financials/{cik}, POST /v1/export/comps, POST /v1/share/email.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { BuiltFile } from "../../../../domain/financials/exports/files.ts";
import { type Guards, SECURITY } from "../../../auth/guards.ts";
import type { AppEnv } from "../../../context.ts";
import type { AppDeps } from "../../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../../schemas.ts";
import { CikParam, CompsBody, FinancialsExportQuery, XlsxResponse } from "./schema.ts";
import { registerShareRoutes } from "./share-routes.ts";

/** `attachment; filename="..."` — our file names are ASCII by construction (safeFileStem). */
export function attachmentHeader(filename: string): string {
  return `attachment; filename="${filename}"`;
}

function download(file: BuiltFile): Response {
  return new Response(file.bytes, {
    status: 200,
    headers: {
      "content-type": file.contentType,
      "content-disposition": attachmentHeader(file.filename),
      // Tenant-authenticated data: no shared caches.
      "cache-control": "private, no-store",
    },
  });
}

export function registerExportRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, guards: Guards): void {
  const financials = deps.financials;
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/export/financials/{cik}",
      tags: ["Exports"],
      summary: "One company's income statements and ratios as an .xlsx workbook",
      description:
        "Sheets: Company (facts and the filings used), Income (annual), Income (quarterly), Ratios (annual), " +
        "Ratios (quarterly). Line items in rows, periods in columns (oldest left). Empty cells are not-reported values.",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: CikParam, query: FinancialsExportQuery },
      responses: { 200: XlsxResponse, 404: json(ErrorBody, "Unknown CIK"), ...AUTH_ERRORS },
    }),
    async (c) => {
      const { cik } = c.req.valid("param");
      return download(await financials.financialsFile(cik, c.req.valid("query")));
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/export/comps",
      tags: ["Exports"],
      summary: "A comparable-companies grid as an .xlsx workbook",
      description: "Rows: companies in request order, then Median and Mean; columns: the requested metrics.",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { body: { content: { "application/json": { schema: CompsBody } }, required: true } },
      responses: { 200: XlsxResponse, 404: json(ErrorBody, "Unknown CIKs (all listed)"), ...AUTH_ERRORS },
    }),
    async (c) => download(await financials.compsFile(c.req.valid("json"))),
  );

  registerShareRoutes(app, financials, guards);
}
