/**
 * Natural-language data access (domain/foundry/query/) over the tenant's data sources: the
 * lakehouse, the graph and the real-time market bars; the language model of
 * CAIRN_LLM_URL / CAIRN_LLM_MODEL when configured (as documents' RAG answers), else the
 * deterministic rules planner alone. The read models (pm.*, md.*) through their
 * structured port.
 */
import { OpenAiChatModel } from "../adapters/llm/index.ts";
import type { FoundryLabPort } from "../domain/foundry/ports.ts";
import { FoundryQuery } from "../domain/foundry/query/service.ts";
import type { FoundryReadModels } from "../domain/foundry/readmodels/service.ts";
import type { FoundryWiring } from "./foundry-wiring.ts";

export function openFoundryQuery(
  d: FoundryWiring & { readModels: Pick<FoundryReadModels, "port"> | null; lab: FoundryLabPort | null },
): FoundryQuery {
  const { lakehouse, lab } = d;
  return new FoundryQuery({
    // Results move from the lab as Arrow IPC (the lab's /foundry/sql), not row-by-row JSON.
    lakehouse:
      lakehouse && lab
        ? {
            listTables: (ns) => lakehouse.listTables(ns),
            tableSchema: (ns, table) => lakehouse.tableSchema(ns, table),
            sql: (ns, statement) => lab.sql(ns, statement),
          }
        : lakehouse,
    graph: d.graph,
    realtime: d.realtime,
    readModels: d.readModels?.port ?? null,
    llm: d.config.llm ? new OpenAiChatModel(d.config.llm) : null,
    onModelFallback: (reason) => d.logger.warn({ reason }, "foundry query: the model's plan was not used"),
  });
}
