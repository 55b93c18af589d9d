/** POST /v1/documents/search: hybrid search over the documents the caller may see. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentService } from "../../../domain/documents/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { accessOf, callerOf } from "./caller.ts";
import { SearchBody, SearchResponse } from "./schema.ts";

export function registerSearchRoute(app: OpenAPIHono<AppEnv>, documents: DocumentService, guards: Guards): void {
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
}
