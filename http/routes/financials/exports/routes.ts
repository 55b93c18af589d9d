/**
 * Spreadsheet downloads and e-mail sharing (spec 4.4, the tool endpoints):
 * GET /v1/export/financials/{cik}, POST /v1/export/comps, POST /v1/share/email.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { AppError } from "../../../../domain/errors.ts";
import type { UserIdentity } from "../../../../domain/identity.ts";
import type { MailAttachment } from "../../../../domain/mail.ts";
import { type Guards, SECURITY } from "../../../auth/guards.ts";
import type { AppEnv } from "../../../context.ts";
import type { AppDeps } from "../../../deps.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../../schemas.ts";
import { attachmentHeader, type BuiltFile, compsFile, financialsFile } from "./build.ts";
import {
  CikParam,
  CompsBody,
  FinancialsExportQuery,
  ShareEmailBody,
  ShareEmailResult,
  XlsxResponse,
} from "./schema.ts";

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
      return download(await financialsFile(deps, cik, c.req.valid("query")));
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
    async (c) => download(await compsFile(deps, c.req.valid("json"))),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/share/email",
      tags: ["Exports"],
      summary: "E-mail a message, optionally with an export workbook attached",
      description:
        "Sent from the installation's address (CAIRN_MAIL_FROM) with Reply-To set to the caller's e-mail. " +
        "202 once the mail server accepted the message for at least one recipient.",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { body: { content: { "application/json": { schema: ShareEmailBody } }, required: true } },
      responses: {
        202: json(ShareEmailResult, "Handed to the mail server"),
        404: json(ErrorBody, "Unknown CIK in the attachment"),
        503: json(ErrorBody, "No mail server configured, or it is unreachable"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const mailer = deps.mailer;
      if (!mailer) throw new AppError("unavailable", "E-mail is not configured on this installation");
      const { user } = c.get("identity") as UserIdentity;
      let file: BuiltFile | null = null;
      if (body.attachment?.kind === "financials")
        file = await financialsFile(deps, body.attachment.cik, body.attachment);
      if (body.attachment?.kind === "comps") file = await compsFile(deps, body.attachment);
      const attachments: MailAttachment[] = file
        ? [{ filename: file.filename, contentType: file.contentType, content: file.bytes }]
        : [];
      const sent = await mailer.send({
        to: body.to,
        replyTo: user.email,
        subject: body.subject,
        text: shareText(body.message, user, file?.filename ?? null),
        attachments,
      });
      c.get("log").bind({ mail_message_id: sent.messageId });
      return c.json({ message_id: sent.messageId, accepted: sent.accepted, rejected: sent.rejected }, 202);
    },
  );
}

/** The sender's words, then a footer saying who shared it and what is attached. */
function shareText(message: string, user: UserIdentity["user"], filename: string | null): string {
  const who = user.name ? `${user.name} <${user.email}>` : user.email;
  const lines = [message, "", "--", `Shared by ${who} via Cairn.`];
  if (filename) lines.push(`Attached: ${filename} (SEC EDGAR data; the filings used are listed in the workbook).`);
  return `${lines.join("\n")}\n`;
}
