/** OpenAPI/zod schemas of the document routes (spec 2.10, 4.6; search: docs/documents.md). */
import { z } from "@hono/zod-openapi";
import { DOC_TYPES, VISIBILITIES } from "../../../domain/documents/types.ts";

export const UploadedDocument = z
  .object({
    doc_id: z.string().uuid(),
    filename: z.string(),
    chunks: z.number().int(),
    tenant_id: z.string().uuid(),
    index_name: z.string().openapi({ example: "client-docs-2f0c3a9e-0000-4000-8000-000000000000" }),
    entity_id: z.string().nullable(),
    doc_type: z.enum(DOC_TYPES),
    visibility: z.enum(VISIBILITIES),
    status: z.literal("indexed"),
  })
  .openapi("UploadedDocument");

const STR = "string" as const;

/** Documented only: the route streams the body itself (a zod form schema would buffer it). */
export const UPLOAD_FORM_SCHEMA = {
  type: "object" as const,
  required: ["file", "tenant_id", "identity_id"],
  properties: {
    file: { type: STR, format: "binary", description: "The document, at most 50 MB" },
    tenant_id: { type: STR, format: "uuid", description: "The caller's tenant" },
    identity_id: { type: STR, description: "The caller's identity (user id)" },
    entity_id: { type: STR, maxLength: 256 },
    doc_type: { type: STR, enum: [...DOC_TYPES], default: "other" },
    visibility: { type: STR, enum: [...VISIBILITIES], default: "tenant_wide" },
    allowed_identity_ids: { type: STR, description: "Comma-separated; required when visibility is deal_private" },
    allowed_roles: { type: STR, description: "Comma-separated role slugs; required when visibility is team_only" },
    barrier_id: { type: STR, format: "uuid" },
  },
};

export const SearchBody = z
  .object({
    query: z.string().trim().min(1).max(2000),
    doc_id: z.string().uuid().optional(),
    entity_id: z.string().min(1).max(256).optional(),
    doc_type: z.enum(DOC_TYPES).optional(),
    k: z.number().int().min(1).max(50).default(10),
    mode: z.enum(["hybrid", "bm25", "dense"]).default("hybrid"),
  })
  .strict()
  .openapi("DocumentSearchRequest");

export const SearchResult = z
  .object({
    doc_id: z.string(),
    chunk_id: z.string(),
    chunk_index: z.number().int(),
    text: z.string(),
    score: z.number(),
    page: z.number().int().nullable(),
    filename: z.string(),
    format: z.string(),
    doc_type: z.enum(DOC_TYPES),
    entity_id: z.string().nullable(),
    visibility: z.enum(VISIBILITIES),
    uploaded_at: z.string(),
    ranks: z.object({ bm25: z.number().int().nullable(), dense: z.number().int().nullable() }),
  })
  .openapi("DocumentSearchResult");

export const SearchResponse = z
  .object({
    query: z.string(),
    k: z.number().int(),
    mode: z.enum(["hybrid", "bm25", "dense"]),
    results: z.array(SearchResult),
  })
  .openapi("DocumentSearchResponse");

export const DocIdParam = z.object({
  doc_id: z
    .string()
    .uuid()
    .openapi({ param: { name: "doc_id", in: "path" } }),
});

export const DocumentRecord = z
  .object({
    doc_id: z.string().uuid(),
    filename: z.string(),
    format: z.string(),
    chunks: z.number().int(),
    tenant_id: z.string(),
    index_name: z.string(),
    entity_id: z.string().nullable(),
    doc_type: z.enum(DOC_TYPES),
    visibility: z.enum(VISIBILITIES),
    allowed_identity_ids: z.array(z.string()),
    allowed_roles: z.array(z.string()),
    barrier_id: z.string().nullable(),
    uploaded_by: z.string(),
    uploaded_at: z.string(),
    status: z.literal("indexed"),
  })
  .openapi("DocumentRecord");
