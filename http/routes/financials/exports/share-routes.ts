/** POST /v1/share/email: a message, optionally with an export workbook attached. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { FinancialsService } from "../../../../domain/financials/service.ts";
import type { UserIdentity } from "../../../../domain/identity.ts";
import { type Guards, SECURITY } from "../../../auth/guards.ts";
import type { AppEnv } from "../../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../../schemas.ts";
import { ShareEmailBody, ShareEmailResult } from "./schema.ts";

export function registerShareRoutes(app: OpenAPIHono<AppEnv>, financials: FinancialsService, guards: Guards): void {
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
      const { user } = c.get("identity") as UserIdentity;
      const sent = await financials.share(c.req.valid("json"), user);
      c.get("log").bind({ mail_message_id: sent.messageId });
      return c.json({ message_id: sent.messageId, accepted: sent.accepted, rejected: sent.rejected }, 202);
    },
  );
}
