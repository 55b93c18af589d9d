/**
 * E-mail sharing (POST /v1/share/email): a message, optionally with an export workbook
 * attached, sent from the installation's address with Reply-To set to the sharer.
 */
import { AppError } from "../errors.ts";
import type { BuiltFile, CompsFileQuery, ExportSources, FinancialsFileQuery } from "./exports/files.ts";
import { compsFile, financialsFile } from "./exports/files.ts";
import type { MailAttachment, Mailer, SentMail } from "./ports.ts";

export interface ShareRequest {
  to: string[];
  subject: string;
  message: string;
  attachment?:
    | ({ kind: "financials"; cik: string } & FinancialsFileQuery)
    | ({ kind: "comps" } & CompsFileQuery)
    | undefined;
}

/** Who shares: the caller, whose address becomes Reply-To and is named in the footer. */
export interface Sharer {
  email: string;
  /** May be empty: the footer then names the address alone. */
  name: string;
}

export async function shareByEmail(
  mailer: Mailer | null,
  src: ExportSources,
  req: ShareRequest,
  user: Sharer,
): Promise<SentMail> {
  if (!mailer) throw new AppError("unavailable", "E-mail is not configured on this installation");
  let file: BuiltFile | null = null;
  if (req.attachment?.kind === "financials") file = await financialsFile(src, req.attachment.cik, req.attachment);
  if (req.attachment?.kind === "comps") file = await compsFile(src, req.attachment);
  const attachments: MailAttachment[] = file
    ? [{ filename: file.filename, contentType: file.contentType, content: file.bytes }]
    : [];
  return mailer.send({
    to: req.to,
    replyTo: user.email,
    subject: req.subject,
    text: shareText(req.message, user, file?.filename ?? null),
    attachments,
  });
}

/** The sender's words, then a footer saying who shared it and what is attached. */
function shareText(message: string, user: Sharer, filename: string | null): string {
  const who = user.name ? `${user.name} <${user.email}>` : user.email;
  const lines = [message, "", "--", `Shared by ${who} via Cairn.`];
  if (filename) lines.push(`Attached: ${filename} (SEC EDGAR data; the filings used are listed in the workbook).`);
  return `${lines.join("\n")}\n`;
}
