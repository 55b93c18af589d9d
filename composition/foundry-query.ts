/**
 * Natural-language data access (domain/foundry/query/) over the tenant's data sources: the
 * lakehouse, the graph and the real-time market bars; the language model of
 * CAIRN_LLM_URL / CAIRN_LLM_MODEL when configured (as documents' RAG answers), else the
 * deterministic rules planner alone. Read models join as a source once
 * domain/foundry/readmodels has its port.
 */
import { OpenAiChatModel } from "../adapters/llm/index.ts";
import { FoundryQuery } from "../domain/foundry/query/service.ts";
import type { FoundryWiring } from "./foundry-wiring.ts";

export function openFoundryQuery(d: FoundryWiring & { readModels: unknown }): FoundryQuery {
  return new FoundryQuery({
    lakehouse: d.lakehouse,
    graph: d.graph,
    realtime: d.realtime,
    llm: d.config.llm ? new OpenAiChatModel(d.config.llm) : null,
    onModelFallback: (reason) => d.logger.warn({ reason }, "foundry query: the model's plan was not used"),
  });
}
