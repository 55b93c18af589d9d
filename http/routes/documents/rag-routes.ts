/**
 * POST /v1/rag/answer/agent (spec 4.4 tool endpoint): an answer with citations from the
 * caller's documents (and public financial data), through the same ACL'd search as
 * POST /v1/documents/search. API key, like the other tool endpoints.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { DocumentService } from "../../../domain/documents/service.ts";
import { type Guards, SECURITY } from "../../auth/guards.ts";
import type { AppEnv } from "../../context.ts";
import { AUTH_ERRORS, ErrorBody, json } from "../../schemas.ts";
import { callerOf } from "./caller.ts";
import { AnswerBody, AnswerResponse } from "./rag-schema.ts";

export function registerRagRoutes(app: OpenAPIHono<AppEnv>, documents: DocumentService, guards: Guards): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/rag/answer/agent",
      tags: ["Documents"],
      summary: "Answer a question with citations (tool-calling model, or extractive without one)",
      description:
        "With a language model configured (CAIRN_LLM_URL, CAIRN_LLM_MODEL), the model calls search_documents " +
        "(the caller's access-controlled search) and financial data tools; mode is 'llm'. Without one, the answer " +
        "quotes the top passages and mode is 'extractive'.",
      security: SECURITY.api_key,
      middleware: guards.api_key,
      request: { body: { content: { "application/json": { schema: AnswerBody } }, required: true } },
      responses: {
        200: json(AnswerResponse, "The answer and the passages it cites"),
        503: json(ErrorBody, "The tenant's document index is not provisioned"),
        ...AUTH_ERRORS,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { ref, identity } = callerOf(c);
      const access = await documents.accessFor({
        tenantId: identity.tenantId,
        userId: identity.user.id,
        roles: identity.roles,
      });
      const result = await documents.answer(
        ref,
        access,
        {
          question: body.question,
          k: body.k,
          filters: {
            ...(body.doc_id ? { doc_id: body.doc_id.toLowerCase() } : {}),
            ...(body.entity_id ? { entity_id: body.entity_id } : {}),
          },
        },
        c.req.raw.signal,
      );
      return c.json(result, 200);
    },
  );
}
