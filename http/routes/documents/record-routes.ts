/** GET and DELETE /v1/documents/{doc_id}: one document the caller may see (404 otherwise). */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentService } from "../../../domain/documents/service.ts";
import { documentIndexName } from "../../../domain/tenants/namespaces.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { accessOf, callerOf } from "./caller.ts";
import { DocIdParam, DocumentRecord } from "./schema.ts";

export function registerDocumentRecordRoutes(
  app: OpenAPIHono<AppEnv>,
  documents: DocumentService,
  guards: Guards,
): void {
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
