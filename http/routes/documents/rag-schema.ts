/** OpenAPI/zod schemas of POST /v1/rag/answer/agent (payload not shown by the spec: docs/documents.md). */
import { z } from "@hono/zod-openapi";

export const AnswerBody = z
  .object({
    question: z.string().trim().min(1).max(2000),
    k: z.number().int().min(1).max(20).default(8),
    entity_id: z.string().min(1).max(256).optional(),
    doc_id: z.string().uuid().optional(),
  })
  .strict()
  .openapi("AgentAnswerRequest");

export const AnswerResponse = z
  .object({
    answer: z.string(),
    citations: z.array(
      z.object({
        ref: z.string().openapi({ example: "S1" }),
        doc_id: z.string(),
        chunk_id: z.string(),
        filename: z.string(),
        page: z.number().int().nullable(),
        quote: z.string(),
      }),
    ),
    mode: z.enum(["llm", "extractive"]),
    tools_called: z.array(z.object({ name: z.string(), arguments: z.any(), ok: z.boolean() })),
    model: z.string().nullable(),
    notes: z.array(z.string()),
  })
  .openapi("AgentAnswer");
