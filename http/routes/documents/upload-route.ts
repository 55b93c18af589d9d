/**
 * POST /v1/documents/upload (spec 2.10, 4.6): the index is checked and an upload slot taken
 * before a byte of the body is read, so a refused request costs nothing; the body is then
 * streamed (413 as soon as the file passes 50 MB) and the answer is sent once the document is
 * in the index. A tenant whose upload was refused as hostile (413 once read, 408) is refused
 * for a moment (HOSTILE_PENALTY_MS).
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentService } from "../../../domain/documents/service.ts";
import { MAX_UPLOAD_BYTES } from "../../../domain/documents/types.ts";
import { AppError } from "../../../domain/errors.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { callerOf } from "./caller.ts";
import { type MultipartLimits, maxBodyBytes, readMultipart, SlowUpload } from "./multipart.ts";
import { UPLOAD_FORM_SCHEMA, UploadedDocument } from "./schema.ts";
import { parseUploadForm } from "./upload-form.ts";

/** How long a tenant's uploads are refused after one was refused as hostile (413, 408). */
export const HOSTILE_PENALTY_MS = 1_000;

export const UPLOAD_LIMITS: MultipartLimits = {
  maxFileBytes: MAX_UPLOAD_BYTES,
  maxFields: 16,
  maxFieldBytes: 64 * 1024,
};

/** The refusal of a request whose body we will not read: ask the client to stop sending it. */
function closing(err: unknown): unknown {
  if (!(err instanceof AppError)) return err;
  return new AppError(err.code, err.message, err.issues, { ...err.headers, Connection: "close" });
}

/** Whether the request was refused by its declared length alone (readMultipart's first check). */
function refusedUnread(req: Request, limits: MultipartLimits): boolean {
  const declared = Number(req.headers.get("content-length"));
  return Number.isFinite(declared) && declared > maxBodyBytes(limits);
}

export function registerUploadRoute(
  app: OpenAPIHono<AppEnv>,
  documents: DocumentService,
  guards: Guards,
  limits: MultipartLimits,
): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/documents/upload",
      tags: ["Documents"],
      summary: "Upload a document into the tenant's index (extract, chunk, embed, index)",
      description:
        "Multipart form (spec 4.6). The response is sent once the document is indexed: it is searchable at once. " +
        "tenant_id and identity_id must name the caller (403 otherwise).",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: {
        body: { content: { "multipart/form-data": { schema: UPLOAD_FORM_SCHEMA } }, required: true },
      },
      responses: {
        200: json(UploadedDocument, "Indexed"),
        408: json(ErrorBody, "The body arrived too slowly (the connection is closed)"),
        413: json(ErrorBody, "The file exceeds 50 MB, or would unpack (archive, image) past the extraction budget"),
        503: json(ErrorBody, "The tenant's document index is not provisioned, or too many uploads are in progress"),
        ...AUTH_ERRORS,
        422: {
          description: "Invalid fields (visibility, doc_type, conditional fields...) or no text could be extracted",
          content: { "application/json": { schema: { $ref: "#/components/schemas/ValidationError" } } },
        },
      },
    }),
    async (c) => {
      const { ref, identity } = callerOf(c);
      const signal = c.req.raw.signal;
      let release: () => void;
      try {
        await documents.requireIndex(ref);
        release = await documents.gate.acquire(ref.tenantId, signal);
      } catch (err) {
        await c.req.raw.body?.cancel().catch(() => {});
        throw closing(err);
      }
      try {
        let parsed: Awaited<ReturnType<typeof readMultipart>>;
        try {
          parsed = await readMultipart(c.req.raw, limits);
        } catch (err) {
          if (!(err instanceof SlowUpload)) throw err;
          documents.gate.penalise(ref.tenantId, HOSTILE_PENALTY_MS);
          throw new AppError("request_timeout", err.message, undefined, { Connection: "close" });
        }
        const form = parseUploadForm(parsed, identity);
        const doc = await documents.upload({
          signal,
          tenant: ref,
          uploadedBy: form.identityId,
          file: { filename: form.file.filename, mimeType: form.file.mimeType, bytes: form.file.bytes },
          docType: form.docType,
          entityId: form.entityId,
          acl: form.acl,
        });
        c.get("log").bind({ doc_id: doc.doc_id });
        return c.json(doc, 200);
      } catch (err) {
        // A file past the limit once read, or one that would unpack past the extraction budget
        // (a refusal by declared Content-Length read nothing, so it costs nothing to repeat).
        if (err instanceof AppError && err.code === "payload_too_large" && !refusedUnread(c.req.raw, limits)) {
          documents.gate.penalise(ref.tenantId, HOSTILE_PENALTY_MS);
        }
        throw err;
      } finally {
        release();
      }
    },
  );
}
