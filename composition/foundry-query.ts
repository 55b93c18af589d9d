/**
 * Natural-language data access (domain/foundry/query/) over the tenant's data sources: the
 * lakehouse, the graph and the real-time market bars; the language model of
 * CAIRN_LLM_URL / CAIRN_LLM_MODEL when configured (as documents' RAG answers), else the
 * deterministic rules planner alone. The read models (pm.*, md.*) through their
 * structured port.
 */
import { OpenAiChatModel } from "../adapters/llm/index.ts";
import { FoundryQuery } from "../domain/foundry/query/service.ts";
import type { FoundryReadModels } from "../domain/foundry/readmodels/service.ts";
import type { FoundryWiring } from "./foundry-wiring.ts";

export function openFoundryQuery(
  d: FoundryWiring & { readModels: Pick<FoundryReadModels, "port"> | null },
): FoundryQuery {
  return new FoundryQuery({
    lakehouse: d.lakehouse,
    graph: d.graph,
    realtime: d.realtime,
    readModels: d.readModels?.port ?? null,
    llm: d.config.llm ? new OpenAiChatModel(d.config.llm) : null,
    onModelFallback: (reason) => d.logger.warn({ reason }, "foundry query: the model's plan was not used"),
  });
}
