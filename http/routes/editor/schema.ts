/** Bodies of the collaborative editor endpoints (spec 2.12, 4.7). */
import { z } from "@hono/zod-openapi";
import { EDITOR_ROLES, GENERAL_ACCESS, MEMBER_ROLES } from "../../../domain/editor/index.ts";

const EXAMPLE_DOC = {
  type: "doc",
  content: [
    { type: "heading", attrs: { level: 1 }, content: [{ type: "text", text: "Deal memo" }] },
    { type: "paragraph", content: [{ type: "text", text: "Revenue grew ", marks: [{ type: "bold" }] }] },
  ],
};

/** Checked against the Tiptap StarterKit schema in the handler (section 7 issues point into the tree). */
export const DocAst = z.record(z.string(), z.unknown()).openapi("DocAst", {
  description: "ProseMirror/Tiptap JSON of the document (StarterKit schema), root type `doc`",
  example: EXAMPLE_DOC,
});

const Title = z.string().trim().min(1).max(200);
const UpdatedByType = z.string().min(1).max(64).openapi({ example: "user" });
const UpdatedById = z.string().min(1).max(256).openapi({ example: "42" });

export const DocIdParam = z.object({
  doc_id: z
    .string()
    .uuid()
    .openapi({ param: { name: "doc_id", in: "path" }, example: "3f1c2a9e-8d4b-4c1e-9a57-2b6f0d8e4a11" }),
});

export const MemberParam = DocIdParam.extend({
  user_id: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: "user_id", in: "path" }, example: 7 }),
});

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ example: 50 }),
  cursor: z.string().min(1).max(512).optional(),
});

export const CreateBody = z
  .object({
    title: Title,
    doc_ast: DocAst.optional(),
    general_access: z
      .enum(GENERAL_ACCESS)
      .optional()
      .openapi({ description: "What other users of the tenant get (default none)" }),
  })
  .strict()
  .openapi("EditorDocumentCreate");

export const PatchBody = z
  .object({
    doc_ast: DocAst,
    updated_by_type: UpdatedByType.optional(),
    updated_by_id: UpdatedById.optional(),
    title: Title.optional(),
  })
  .strict()
  .openapi("EditorDocumentPatch");

export const PutYjsBody = z
  .object({
    yjs_state: z
      .string()
      .regex(/^[A-Za-z0-9+/_-]*={0,2}$/)
      .openapi({
        description: "base64 of Y.encodeStateAsUpdate(doc)",
        example: "AQHk1pqDBQAHAQdkZWZhdWx0AwlwYXJhZ3JhcGgA",
      }),
    updated_by_type: UpdatedByType.optional(),
    updated_by_id: UpdatedById.optional(),
  })
  .strict()
  .openapi("EditorYjsState");

export const AuthBody = z
  .object({
    token: z.string().min(1).max(8192).openapi({ description: "The user's JWT" }),
    documentName: z.string().min(1).max(256).openapi({ description: "Room name: the document UUID" }),
    requestParameters: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("EditorAuthRequest");

export const MemberBody = z
  .object({ role: z.enum(MEMBER_ROLES) })
  .strict()
  .openapi("EditorMemberGrant");
export const AccessBody = z
  .object({ general_access: z.enum(GENERAL_ACCESS) })
  .strict()
  .openapi("EditorGeneralAccess");

const documentFields = {
  doc_id: z.string().uuid(),
  room_name: z.string().uuid().openapi({ description: "The collaboration room name (the document UUID)" }),
  title: z.string(),
  my_role: z.enum(EDITOR_ROLES),
  owner_id: z.number().int(),
  general_access: z.enum(GENERAL_ACCESS),
  version: z.number().int(),
  created_at: z.string(),
  created_by: z.number().int(),
  updated_at: z.string(),
  updated_by_type: z.string(),
  updated_by_id: z.string(),
};

export const DocumentSummary = z.object(documentFields).openapi("EditorDocumentSummary");
export const DocumentBody = z.object({ ...documentFields, doc_ast: DocAst }).openapi("EditorDocument");
export const DocumentList = z
  .object({ documents: z.array(DocumentSummary), next_cursor: z.string().nullable() })
  .openapi("EditorDocumentList");

export const GetYjsResult = z
  .object({
    yjs_state: z.string().nullable().openapi({
      description: "base64 of the stored Y.encodeStateAsUpdate(doc); null for a document never edited",
      example: "AQHk1pqDBQAHAQdkZWZhdWx0AwlwYXJhZ3JhcGgA",
    }),
  })
  .openapi("EditorYjsState");

export const PutYjsResult = z
  .object({ doc_id: z.string().uuid(), version: z.number().int(), changed: z.boolean() })
  .openapi("EditorYjsStored");

export const AuthResult = z
  .object({
    read_only: z.boolean(),
    role: z.enum(EDITOR_ROLES),
    doc_id: z.string().uuid(),
    tenant_id: z.string(),
    user: z.object({ id: z.number().int(), email: z.string(), name: z.string() }),
  })
  .openapi("EditorAuthResult");

export const Member = z
  .object({
    user_id: z.number().int(),
    role: z.enum(MEMBER_ROLES),
    granted_at: z.string(),
    granted_by: z.number().int(),
    email: z.string(),
    name: z.string(),
  })
  .openapi("EditorMember");

export const MemberList = z
  .object({ owner_id: z.number().int(), general_access: z.enum(GENERAL_ACCESS), members: z.array(Member) })
  .openapi("EditorMembers");
