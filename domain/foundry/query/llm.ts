/**
 * The model planner: an OpenAI-compatible chat model (domain/llm.ts) given the tenant's
 * schema (lakehouse tables and columns, the graph model) plans one statement through the
 * `plan_query` tool. What it returns is only a proposal: the service validates it
 * (./validate.ts) exactly as a rules plan before anything runs.
 */
import type { ChatModel, ToolSpec } from "../../llm.ts";
import { GRAPH_NODES, GRAPH_RELS } from "../graph/model.ts";

export interface TableSchema {
  name: string;
  columns: { name: string; type: string }[];
}

export type LlmPlan =
  | { source: "lakehouse"; sql: string; explanation: string }
  | { source: "graph"; cypher: string; explanation: string }
  | { unanswerable: string };

export const PLAN_TOOL: ToolSpec = {
  name: "plan_query",
  description:
    "Plan one read-only query that answers the user's question over the tenant's data, or say it cannot be answered.",
  parameters: {
    type: "object",
    properties: {
      answerable: { type: "boolean", description: "false when the data cannot answer the question" },
      source: { type: "string", enum: ["lakehouse", "graph"] },
      statement: { type: "string", description: "one SQL SELECT (lakehouse) or one Cypher MATCH ... RETURN (graph)" },
      explanation: {
        type: "string",
        description: "one or two sentences: what the statement computes, or why it cannot",
      },
    },
    required: ["answerable", "explanation"],
  },
};

export function systemPrompt(tables: TableSchema[], graph: boolean, maxRows: number): string {
  const lines = [
    "You turn questions about a tenant's financial data into ONE read-only query. Reply only by calling plan_query.",
    "",
    "Lakehouse (SQL, DuckDB dialect; name tables bare, never with a schema or namespace; SELECT or WITH only;",
    `at most ${maxRows} rows: add a LIMIT when a result could be long):`,
  ];
  for (const t of tables) lines.push(`- ${t.name}(${t.columns.map((c) => `${c.name} ${c.type}`).join(", ")})`);
  lines.push(
    "",
    "Conventions: cik is a 10-digit zero-padded string; ticker is upper case; fiscal_period is FY or Q1..Q4 (use FY",
    "for a year unless a quarter is asked); ratios are fractions (0.44 = 44%); money is in the reporting currency (USD).",
  );
  if (graph) {
    lines.push("", "Graph (Cypher; MATCH ... RETURN only, these labels and relationship types only, no procedures):");
    for (const [label, decl] of Object.entries(GRAPH_NODES)) {
      lines.push(`- (:${label} {${Object.keys(decl.props).join(", ")}})`);
    }
    for (const [type, decl] of Object.entries(GRAPH_RELS)) {
      const props = Object.keys(decl.props);
      lines.push(`- (:${decl.from})-[:${type}${props.length ? ` {${props.join(", ")}}` : ""}]->(:${decl.to})`);
    }
    lines.push("Company.cik in the graph is the CIK without leading zeros (320193 for Apple).");
  }
  lines.push("", "If the data cannot answer the question, call plan_query with answerable=false and say why.");
  return lines.join("\n");
}

function parseJsonLoose(text: string): Record<string, unknown> | null {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1] : text)?.trim() ?? "";
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    const v = JSON.parse(body.slice(start, end + 1)) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Asks the model for a plan; null when its reply is not a plan at all. Network errors propagate. */
export async function planWithModel(
  llm: ChatModel,
  question: string,
  tables: TableSchema[],
  graph: boolean,
  maxRows: number,
  signal?: AbortSignal,
): Promise<LlmPlan | null> {
  const res = await llm.chat({
    messages: [
      { role: "system", content: systemPrompt(tables, graph, maxRows) },
      { role: "user", content: question },
    ],
    tools: [PLAN_TOOL],
    toolChoice: "auto",
    temperature: 0,
    maxTokens: 800,
    ...(signal ? { signal } : {}),
  });
  const call = res.toolCalls.find((c) => c.name === PLAN_TOOL.name);
  const args = call ? parseJsonLoose(call.arguments) : res.content ? parseJsonLoose(res.content) : null;
  if (!args) return null;
  const explanation = typeof args.explanation === "string" ? args.explanation.slice(0, 2000) : "";
  if (args.answerable === false) return { unanswerable: explanation || "The model could not answer this question." };
  const statement = typeof args.statement === "string" ? args.statement : null;
  if (!statement) return null;
  if (args.source === "graph") return { source: "graph", cypher: statement, explanation };
  if (args.source === "lakehouse" || args.source === undefined)
    return { source: "lakehouse", sql: statement, explanation };
  return null;
}
