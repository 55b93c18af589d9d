/**
 * Outgoing e-mail (POST /v1/share/email). The SMTP adapter implements it; main.ts wires
 * it only when CAIRN_SMTP_URL is set, so a null mailer means "not configured" (503).
 */

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array;
}

export interface OutgoingMail {
  /** Bare addresses, already validated (no display names, no line breaks). */
  to: string[];
  /** Where replies go: the user who shared, so the sender address can stay a no-reply one. */
  replyTo?: string;
  subject: string;
  text: string;
  attachments: MailAttachment[];
}

export interface SentMail {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

export interface Mailer {
  /**
   * Hands the message to the mail server. Throws AppError "unavailable" when the server
   * cannot be reached or refuses the sender, "validation" when it refuses every recipient.
   */
  send(mail: OutgoingMail): Promise<SentMail>;
  close(): Promise<void>;
}
