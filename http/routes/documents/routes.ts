/**
 * Documents (spec 2.10, 4.6): streamed multipart upload and ACL'd search. API key only
 * (spec 5). The upload checks the index and takes an upload slot before it reads a byte
 * of the body, so a refused request costs nothing; the body is then streamed (413 as soon
 * as the file passes 50 MB) and the answer is sent once the document is in the index.
 * The request's signal follows the upload: a client that goes away leaves the gate's queue,
 * has its extraction job dropped or its worker terminated, and nothing is indexed.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentService } from "../../../domain/documents/service.ts";
import { MAX_UPLOAD_BYTES } from "../../../domain/documents/types.ts";
import { AppError } from "../../../domain/errors.ts";
import type { UserIdentity } from "../../../domain/identity.ts";
import type { TenantRef } from "../../../domain/tenants/namespaces.ts";
import { documentIndexName } from "../../../domain/tenants/namespaces.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { type MultipartLimits, maxBodyBytes, readMultipart, SlowUpload } from "./multipart.ts";
import {
  DocIdParam,
  DocumentRecord,
  SearchBody,
  SearchResponse,
  UPLOAD_FORM_SCHEMA,
  UploadedDocument,
} from "./schema.ts";
import { parseUploadForm } from "./upload-form.ts";

/** How long a tenant's uploads are refused after one was refused as hostile (413, 408). */
export const HOSTILE_PENALTY_MS = 1_000;

export const UPLOAD_LIMITS: MultipartLimits = {
  maxFileBytes: MAX_UPLOAD_BYTES,
  maxFields: 16,
  maxFieldBytes: 64 * 1024,
};

interface Ctx {
  get(key: "tenant"): { tenant_id: string; slug: string };
  get(key: "identity"): unknown;
}

export function callerOf(c: Ctx): { ref: TenantRef; identity: UserIdentity } {
  const tenant = c.get("tenant");
  return { ref: { tenantId: tenant.tenant_id, slug: tenant.slug }, identity: c.get("identity") as UserIdentity };
}

async function accessOf(documents: DocumentService, identity: UserIdentity) {
  return documents.accessFor({ tenantId: identity.tenantId, userId: identity.user.id, roles: identity.roles });
}

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

export function registerDocumentRoutes(
  app: OpenAPIHono<AppEnv>,
  documents: DocumentService,
  guards: Guards,
  limits: MultipartLimits = UPLOAD_LIMITS,
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

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/documents/search",
      tags: ["Documents"],
      summary: "Hybrid search over the documents the caller may see",
      description:
        "Access control comes from the API key's identity (roles, barriers crossed now), never from the body. " +
        "Returns up to k chunks, best first.",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { body: { content: { "application/json": { schema: SearchBody } }, required: true } },
      responses: {
        200: json(SearchResponse, "Matching chunks with their document's metadata"),
        503: json(ErrorBody, "The tenant's document index is not provisioned"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { ref, identity } = callerOf(c);
      const access = await accessOf(documents, identity);
      const hits = await documents.search(ref, access, {
        query: body.query,
        filters: {
          ...(body.doc_id ? { doc_id: body.doc_id.toLowerCase() } : {}),
          ...(body.entity_id ? { entity_id: body.entity_id } : {}),
          ...(body.doc_type ? { doc_type: body.doc_type } : {}),
        },
        k: body.k,
        mode: body.mode,
      });
      return c.json(
        {
          query: body.query,
          k: body.k,
          mode: body.mode,
          results: hits.map((h) => ({
            doc_id: h.doc_id,
            chunk_id: h.chunk_id,
            chunk_index: h.chunk_index,
            text: h.text,
            score: h.score,
            page: h.page,
            filename: h.document.filename,
            format: h.document.format,
            doc_type: h.document.doc_type,
            entity_id: h.document.entity_id,
            visibility: h.document.acl.visibility,
            uploaded_at: h.document.uploaded_at,
            ranks: h.ranks,
          })),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/documents/{doc_id}",
      tags: ["Documents"],
      summary: "A document's metadata and access rules (404 unless the caller may see it)",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: DocIdParam },
      responses: {
        200: json(DocumentRecord, "The document"),
        404: json(ErrorBody, "No such document, or the caller may not see it"),
        503: json(ErrorBody, "The tenant's document index is not provisioned"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { ref, identity } = callerOf(c);
      const doc = await documents.get(
        ref,
        await accessOf(documents, identity),
        c.req.valid("param").doc_id.toLowerCase(),
      );
      return c.json(
        {
          doc_id: doc.doc_id,
          filename: doc.filename,
          format: doc.format,
          chunks: doc.chunks,
          tenant_id: ref.tenantId,
          index_name: documentIndexName(ref.tenantId),
          entity_id: doc.entity_id,
          doc_type: doc.doc_type,
          visibility: doc.acl.visibility,
          allowed_identity_ids: doc.acl.allowed_identity_ids,
          allowed_roles: doc.acl.allowed_roles,
          barrier_id: doc.acl.barrier_id,
          uploaded_by: doc.uploaded_by,
          uploaded_at: doc.uploaded_at,
          status: "indexed" as const,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/documents/{doc_id}",
      tags: ["Documents"],
      summary: "Remove a document from the index (its uploader or a tenant owner)",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { params: DocIdParam },
      responses: {
        204: { description: "Removed" },
        404: json(ErrorBody, "No such document, or the caller may not see it"),
        503: json(ErrorBody, "The tenant's document index is not provisioned"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const { ref, identity } = callerOf(c);
      await documents.delete(ref, await accessOf(documents, identity), c.req.valid("param").doc_id.toLowerCase());
      return c.body(null, 204);
    },
  );
}
