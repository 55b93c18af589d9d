/**
 * Mailer over SMTP with Nodemailer. One connection per message: shares are rare and a
 * pooled connection would sit idle (and time out) between them. Timeouts are short so a
 * dead mail server costs a request seconds, not minutes.
 */
import nodemailer from "nodemailer";
import type { NodemailerError } from "nodemailer/lib/errors";
import { AppError } from "../../domain/errors.ts";
import type { Mailer, OutgoingMail, SentMail } from "../../domain/financials/ports.ts";

export interface SmtpMailerOptions {
  /** smtp://[user:pass@]host:port (STARTTLS when offered) or smtps:// (TLS from the start). */
  url: string;
  /** The From address, e.g. `Cairn <no-reply@example.com>`. */
  from: string;
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** Sees every failed send (the caller only gets the mapped AppError). */
  onError?: (err: NodemailerError) => void;
}

/** Errors that mean the server could not be reached or talked to at all. */
const UNREACHABLE = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ETLS", "EPROTOCOL"]);

export class SmtpMailer implements Mailer {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;

  constructor(private readonly opts: SmtpMailerOptions) {
    this.transport = nodemailer.createTransport({
      url: opts.url,
      connectionTimeout: opts.connectionTimeoutMs ?? 10_000,
      greetingTimeout: opts.connectionTimeoutMs ?? 10_000,
      socketTimeout: opts.socketTimeoutMs ?? 30_000,
      // Attachments are always in-memory buffers; never let a message read files or URLs.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    try {
      const info = await this.transport.sendMail({
        from: this.opts.from,
        to: mail.to,
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
        subject: mail.subject,
        text: mail.text,
        attachments: mail.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: Buffer.from(a.content),
        })),
      });
      const addr = (a: string | { address: string }) => (typeof a === "string" ? a : a.address);
      return {
        messageId: info.messageId,
        accepted: info.accepted.map(addr),
        rejected: info.rejected.map(addr),
      };
    } catch (err) {
      this.opts.onError?.(err as NodemailerError);
      throw toAppError(err as NodemailerError, mail.to);
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

function toAppError(err: NodemailerError, to: string[]): AppError {
  if (err.code === "EENVELOPE" && err.command !== "MAIL FROM") {
    // The server refused every recipient: the caller's input, not our outage.
    return AppError.validation([
      {
        loc: ["body", "to"],
        msg: "The mail server refused every recipient",
        type: "value_error",
        input: to,
        ctx: { response: err.response ?? err.message },
      },
    ]);
  }
  const why = UNREACHABLE.has(err.code ?? "") ? "unreachable" : "refused the message";
  return new AppError("unavailable", `The mail server ${why}; try again later`);
}
