/**
 * The agentic answer (POST /v1/rag/answer/agent). With a chat model: a bounded
 * tool-calling loop over `search_documents` (the caller's ACL'd search, scoped further by
 * the request's doc_id / entity_id, which the model cannot widen) and the public financial
 * data tools. Without one: an extractive answer, the top passages quoted with citations,
 * labelled as such. Passages are numbered S1, S2... across the whole loop; the model cites
 * them as [S1], and the citations list the passages the answer cites.
 */
import { z } from "zod";
import { normalizeCik } from "../financials/fields.ts";
import type { FinancialsReader } from "../financials/ports.ts";
import type { ChatMessage, ChatModel, ToolCall, ToolSpec } from "../llm.ts";
import { DOC_TYPES, type SearchFilters, type SearchHit } from "./types.ts";

export interface Citation {
  /** The marker the answer uses for this passage, e.g. "S1". */
  ref: string;
  doc_id: string;
  chunk_id: string;
  filename: string;
  page: number | null;
  quote: string;
}

export interface ToolCallRecord {
  name: string;
  arguments: unknown;
  ok: boolean;
}

export interface AnswerResult {
  answer: string;
  citations: Citation[];
  mode: "llm" | "extractive";
  tools_called: ToolCallRecord[];
  /** The model that answered (null when extractive). */
  model: string | null;
  /** Why an answer is extractive although a model is configured, and similar facts. */
  notes: string[];
}

export interface AgentDeps {
  llm: ChatModel | null;
  financials: FinancialsReader;
  /** The caller's ACL'd search (tenant and access already bound). */
  search(query: string, filters: SearchFilters, k: number): Promise<SearchHit[]>;
}

export interface AnswerInput {
  question: string;
  k: number;
  filters: Pick<SearchFilters, "doc_id" | "entity_id">;
}

export const MAX_AGENT_STEPS = 6;
const MAX_CALLS_PER_STEP = 4;
const MAX_TOOL_CALLS = 12;
const MAX_TOOL_RESULT_CHARS = 24_000;
const EXTRACTIVE_PASSAGES = 5;

const SYSTEM_PROMPT = [
  "You answer questions for a financial analyst using only the tools' results.",
  "Use search_documents to find passages in the analyst's documents; call it again with other wording when the first results do not answer.",
  "Use get_ratios, get_income and get_company for public company financials by SEC CIK.",
  "Each passage has a ref such as S1. Cite every fact from a passage with its ref in square brackets, e.g. [S1].",
  "If the tools do not contain the answer, say so plainly. Never invent facts or refs.",
].join(" ");

const STATEMENT_ARGS = {
  type: "object",
  properties: {
    cik: { type: "string", description: "SEC CIK, with or without leading zeros" },
    fiscal_year: { type: "integer" },
    period: { type: "string", enum: ["FY", "Q1", "Q2", "Q3", "Q4"] },
    limit: { type: "integer", minimum: 1, maximum: 20 },
  },
  required: ["cik"],
  additionalProperties: false,
};

export const AGENT_TOOLS: ToolSpec[] = [
  {
    name: "search_documents",
    description:
      "Hybrid keyword + semantic search over the documents the user may see. Returns passages with refs (S1, S2...), filenames and pages.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "what to look for" },
        k: { type: "integer", minimum: 1, maximum: 20, description: "passages to return (default 8)" },
        doc_id: { type: "string", description: "only this document" },
        entity_id: { type: "string", description: "only documents about this entity" },
        doc_type: { type: "string", enum: [...DOC_TYPES] },
      },
      required: ["query"],
      additionalProperties: false,
    },
  },
  {
    name: "get_ratios",
    description: "Financial ratio records (margins, returns, leverage, liquidity) of a listed company, newest first.",
    parameters: STATEMENT_ARGS,
  },
  {
    name: "get_income",
    description:
      "Income statement records (revenue, operating income, net income, EPS) of a listed company, newest first.",
    parameters: STATEMENT_ARGS,
  },
  {
    name: "get_company",
    description: "Company profile by CIK: name, tickers, exchanges, SIC industry, fiscal year end.",
    parameters: {
      type: "object",
      properties: { cik: { type: "string" } },
      required: ["cik"],
      additionalProperties: false,
    },
  },
];

const SearchArgs = z.object({
  query: z.string().trim().min(1).max(1000),
  k: z.number().int().min(1).max(20).optional(),
  doc_id: z.string().max(128).optional(),
  entity_id: z.string().max(256).optional(),
  doc_type: z.enum(DOC_TYPES).optional(),
});
const StatementArgs = z.object({
  cik: z.string().or(z.number().transform(String)),
  fiscal_year: z.number().int().min(1900).max(2200).optional(),
  period: z.enum(["FY", "Q1", "Q2", "Q3", "Q4"]).optional(),
  limit: z.number().int().min(1).max(20).optional(),
});
const CompanyArgs = z.object({ cik: z.string().or(z.number().transform(String)) });

/** Numbers passages across the loop; the same chunk keeps its ref. */
class PassageBook {
  private readonly byChunk = new Map<string, { ref: string; hit: SearchHit }>();

  add(hit: SearchHit): string {
    const known = this.byChunk.get(hit.chunk_id);
    if (known) return known.ref;
    const ref = `S${this.byChunk.size + 1}`;
    this.byChunk.set(hit.chunk_id, { ref, hit });
    return ref;
  }

  get size(): number {
    return this.byChunk.size;
  }

  all(): { ref: string; hit: SearchHit }[] {
    return [...this.byChunk.values()];
  }

  byRef(ref: string): { ref: string; hit: SearchHit } | undefined {
    return this.all().find((p) => p.ref === ref);
  }
}

export async function answerQuestion(deps: AgentDeps, input: AnswerInput, signal?: AbortSignal): Promise<AnswerResult> {
  if (!deps.llm) return extractive(deps, input, []);
  try {
    return await agentLoop(deps, deps.llm, input, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    // A model that is down should not take the endpoint with it: answer extractively, say why.
    return extractive(deps, input, [`language model unavailable, answered extractively: ${(err as Error).message}`]);
  }
}

async function agentLoop(
  deps: AgentDeps,
  llm: ChatModel,
  input: AnswerInput,
  signal?: AbortSignal,
): Promise<AnswerResult> {
  const book = new PassageBook();
  const records: ToolCallRecord[] = [];
  const scope = scopeNote(input.filters);
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: scope ? `${input.question}\n\n(${scope})` : input.question },
  ];
  let final: string | null = null;
  let model = llm.model;
  for (let step = 0; step < MAX_AGENT_STEPS && final === null; step++) {
    const last = step === MAX_AGENT_STEPS - 1 || records.length >= MAX_TOOL_CALLS;
    const res = await llm.chat({
      messages,
      tools: AGENT_TOOLS,
      toolChoice: last ? "none" : "auto",
      temperature: 0,
      ...(signal ? { signal } : {}),
    });
    model = res.model;
    if (res.toolCalls.length === 0 || last) {
      final = res.content ?? "";
      break;
    }
    const calls = res.toolCalls.slice(0, Math.min(MAX_CALLS_PER_STEP, MAX_TOOL_CALLS - records.length));
    messages.push({ role: "assistant", content: res.content, tool_calls: calls });
    for (const call of calls) {
      const { content, record } = await runTool(deps, input, book, call);
      records.push(record);
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  const answer = (final ?? "").trim();
  const cited = citedRefs(answer)
    .map((r) => book.byRef(r))
    .filter((p) => p !== undefined);
  // An answer that cites nothing still rests on what was retrieved: list that, best first.
  const used = cited.length > 0 ? cited : book.all().slice(0, input.k);
  return {
    answer: answer || "The model returned no answer.",
    citations: used.map((p) => citation(p.ref, p.hit, input.question)),
    mode: "llm",
    tools_called: records,
    model,
    notes: [],
  };
}

async function runTool(
  deps: AgentDeps,
  input: AnswerInput,
  book: PassageBook,
  call: ToolCall,
): Promise<{ content: string; record: ToolCallRecord }> {
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch {
    return fail(call.name, call.arguments, "arguments are not valid JSON");
  }
  try {
    switch (call.name) {
      case "search_documents": {
        const parsed = SearchArgs.safeParse(args);
        if (!parsed.success) return fail(call.name, args, zodMessage(parsed.error));
        const a = parsed.data;
        // The request's scope wins over the model's: the model can narrow, never widen.
        const filters: SearchFilters = {
          ...(a.doc_id ? { doc_id: a.doc_id } : {}),
          ...(a.entity_id ? { entity_id: a.entity_id } : {}),
          ...(a.doc_type ? { doc_type: a.doc_type } : {}),
          ...(input.filters.doc_id ? { doc_id: input.filters.doc_id } : {}),
          ...(input.filters.entity_id ? { entity_id: input.filters.entity_id } : {}),
        };
        const hits = await deps.search(a.query, filters, a.k ?? Math.min(8, input.k));
        const passages = hits.map((h) => ({
          ref: book.add(h),
          filename: h.document.filename,
          page: h.page,
          doc_id: h.doc_id,
          doc_type: h.document.doc_type,
          text: h.text,
        }));
        return ok(call.name, a, { passages });
      }
      case "get_ratios":
      case "get_income": {
        const parsed = StatementArgs.safeParse(args);
        if (!parsed.success) return fail(call.name, args, zodMessage(parsed.error));
        const cik = normalizeCik(parsed.data.cik);
        if (!cik) return fail(call.name, args, "cik must be 1-10 digits");
        const q = {
          limit: parsed.data.limit ?? 8,
          ...(parsed.data.fiscal_year ? { fiscal_year: parsed.data.fiscal_year } : {}),
          ...(parsed.data.period ? { period: parsed.data.period } : {}),
        };
        const rows =
          call.name === "get_ratios" ? await deps.financials.ratios(cik, q) : await deps.financials.income(cik, q);
        return ok(call.name, parsed.data, { cik, records: rows });
      }
      case "get_company": {
        const parsed = CompanyArgs.safeParse(args);
        if (!parsed.success) return fail(call.name, args, zodMessage(parsed.error));
        const cik = normalizeCik(parsed.data.cik);
        if (!cik) return fail(call.name, args, "cik must be 1-10 digits");
        const company = await deps.financials.company(cik);
        if (!company) return ok(call.name, parsed.data, { cik, found: false });
        const { facts, ...profile } = company;
        return ok(call.name, parsed.data, { cik, found: true, profile, facts: facts.slice(0, 40) });
      }
      default:
        return fail(call.name, args, `unknown tool '${call.name}'`);
    }
  } catch (err) {
    return fail(call.name, args, `tool failed: ${(err as Error).message}`);
  }
}

function ok(name: string, args: unknown, result: unknown): { content: string; record: ToolCallRecord } {
  let content = JSON.stringify(result);
  if (content.length > MAX_TOOL_RESULT_CHARS) content = `${content.slice(0, MAX_TOOL_RESULT_CHARS)}…(truncated)`;
  return { content, record: { name, arguments: args, ok: true } };
}

function fail(name: string, args: unknown, error: string): { content: string; record: ToolCallRecord } {
  return { content: JSON.stringify({ error }), record: { name, arguments: args, ok: false } };
}

function zodMessage(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
}

function scopeNote(f: AnswerInput["filters"]): string {
  const parts = [
    f.doc_id ? `searches are limited to document ${f.doc_id}` : "",
    f.entity_id ? `searches are limited to entity ${f.entity_id}` : "",
  ].filter(Boolean);
  return parts.join("; ");
}

/** Refs in order of first mention: [S1], [S2, S3] and [S1][S4] forms. */
export function citedRefs(answer: string): string[] {
  const seen: string[] = [];
  for (const group of answer.matchAll(/\[([^\]]{1,80})\]/g)) {
    for (const m of (group[1] ?? "").matchAll(/\bS(\d{1,4})\b/g)) {
      const ref = `S${m[1]}`;
      if (!seen.includes(ref)) seen.push(ref);
    }
  }
  return seen;
}

async function extractive(deps: AgentDeps, input: AnswerInput, notes: string[]): Promise<AnswerResult> {
  const filters: SearchFilters = {
    ...(input.filters.doc_id ? { doc_id: input.filters.doc_id } : {}),
    ...(input.filters.entity_id ? { entity_id: input.filters.entity_id } : {}),
  };
  const hits = await deps.search(input.question, filters, input.k);
  const tools: ToolCallRecord[] = [
    { name: "search_documents", arguments: { query: input.question, k: input.k, ...filters }, ok: true },
  ];
  const top = hits.slice(0, Math.min(EXTRACTIVE_PASSAGES, input.k));
  const citations = top.map((h, i) => citation(`S${i + 1}`, h, input.question));
  const header =
    "Extractive answer (no language model): the closest passages in your documents, quoted, not summarised.";
  const answer =
    citations.length === 0
      ? "Extractive answer (no language model): no passage in the documents you may see matches the question."
      : [
          header,
          ...citations.map(
            (c) => `[${c.ref}] "${c.quote}" (${c.filename}${c.page !== null ? `, page ${c.page}` : ""})`,
          ),
        ].join("\n");
  return { answer, citations, mode: "extractive", tools_called: tools, model: null, notes };
}

function citation(ref: string, hit: SearchHit, question: string): Citation {
  return {
    ref,
    doc_id: hit.doc_id,
    chunk_id: hit.chunk_id,
    filename: hit.document.filename,
    page: hit.page,
    quote: bestQuote(hit.text, question),
  };
}

const STOP = new Set(
  "the a an and or of to in on for with by at from is are was were be been what which who whom how why when where does do did has have had this that these those it its as about into than then".split(
    " ",
  ),
);
const MAX_QUOTE = 400;

function terms(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w)));
}

/** The sentence (or two short ones) of the passage sharing most terms with the question. */
export function bestQuote(text: string, question: string): string {
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 0);
  if (sentences.length === 0) return "";
  const q = terms(question);
  let best = 0;
  let bestScore = -1;
  sentences.forEach((s, i) => {
    let score = 0;
    for (const t of terms(s)) if (q.has(t)) score += 1;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  let quote = sentences[best] ?? "";
  const next = sentences[best + 1];
  if (quote.length < 120 && next) quote = `${quote} ${next}`;
  return quote.length > MAX_QUOTE ? `${quote.slice(0, MAX_QUOTE - 1).trimEnd()}…` : quote;
}
