import { describe, expect, test } from "bun:test";
import type { FinancialsReader } from "../financials/ports.ts";
import type { ChatModel, ChatRequest } from "../llm.ts";
import { answerQuestion, bestQuote, citedRefs, MAX_AGENT_STEPS } from "./agent.ts";
import type { SearchHit } from "./types.ts";

describe("citedRefs", () => {
  test("reads [S1], [S2, S3] and [S1][S4] in order of first mention, once each", () => {
    expect(citedRefs("Revenue grew [S2]. Margins fell [S1, S3][S2] and [see S4].")).toEqual(["S2", "S1", "S3", "S4"]);
    expect(citedRefs("No refs here [1] (S5)")).toEqual([]);
  });
});

describe("bestQuote", () => {
  test("picks the sentence sharing most terms with the question", () => {
    const text =
      "The company was founded in 1976. Revenue grew 12 percent to 94.9 billion dollars in the fourth quarter. " +
      "The board declared a dividend.";
    const q = bestQuote(text, "How much did revenue grow?");
    expect(q.startsWith("Revenue grew 12 percent to 94.9 billion dollars in the fourth quarter.")).toBe(true);
    expect(q).not.toContain("founded");
  });

  test("joins a short sentence with the next and caps long ones", () => {
    expect(bestQuote("Net income rose. It reached 10 million.", "net income")).toBe(
      "Net income rose. It reached 10 million.",
    );
    const long = `Revenue ${"word ".repeat(200)}.`;
    const q = bestQuote(long, "revenue");
    expect(q.length).toBeLessThanOrEqual(400);
    expect(q.endsWith("…")).toBe(true);
  });
});

describe("the tool-calling loop", () => {
  const hit = (n: number): SearchHit => ({
    chunk_id: `d${n}:0`,
    doc_id: `d${n}`,
    chunk_index: 0,
    text: `Passage ${n} about revenue.`,
    page: n,
    score: 1 / n,
    ranks: { bm25: n, dense: null },
    document: {
      doc_id: `d${n}`,
      filename: `f${n}.pdf`,
      format: "pdf",
      doc_type: "other",
      entity_id: null,
      uploaded_by: "1",
      uploaded_at: "2026-01-01T00:00:00.000Z",
      acl: { visibility: "tenant_wide", allowed_identity_ids: [], allowed_roles: [], barrier_id: null },
    },
  });
  const financials = {
    income: async () => [],
    ratios: async () => [],
    company: async () => null,
    listCiks: async () => [],
  } as unknown as FinancialsReader;

  test("a model that never stops calling tools is cut off after MAX_AGENT_STEPS, the last turn without tools", async () => {
    const seen: ChatRequest[] = [];
    const llm: ChatModel = {
      model: "loop",
      chat: async (req) => {
        seen.push(req);
        if (req.toolChoice === "none")
          return { content: "Final [S1]", toolCalls: [], finishReason: "stop", model: "loop" };
        return {
          content: null,
          toolCalls: [{ id: `c${seen.length}`, name: "search_documents", arguments: '{"query":"revenue"}' }],
          finishReason: "tool_calls",
          model: "loop",
        };
      },
    };
    const out = await answerQuestion(
      { llm, financials, search: async () => [hit(1), hit(2)] },
      { question: "revenue?", k: 5, filters: {} },
    );
    expect(seen).toHaveLength(MAX_AGENT_STEPS);
    expect(seen.at(-1)?.toolChoice).toBe("none");
    expect(out.tools_called).toHaveLength(MAX_AGENT_STEPS - 1);
    expect(out.answer).toBe("Final [S1]");
    expect(out.citations.map((c) => c.ref)).toEqual(["S1"]);
  });

  test("bad arguments and unknown tools are reported to the model, not thrown; scope filters win", async () => {
    const filtersSeen: unknown[] = [];
    let turn = 0;
    const toolReplies: string[] = [];
    const llm: ChatModel = {
      model: "m",
      chat: async (req) => {
        turn += 1;
        if (turn === 1)
          return {
            content: null,
            toolCalls: [
              { id: "a", name: "search_documents", arguments: "{not json" },
              { id: "b", name: "drop_tables", arguments: "{}" },
              { id: "c", name: "get_ratios", arguments: '{"cik":"abc"}' },
              { id: "d", name: "search_documents", arguments: '{"query":"x","doc_id":"other","entity_id":"e2"}' },
            ],
            finishReason: "tool_calls",
            model: "m",
          };
        for (const m of req.messages) if (m.role === "tool") toolReplies.push(m.content);
        return { content: "Nothing cited.", toolCalls: [], finishReason: "stop", model: "m" };
      },
    };
    const out = await answerQuestion(
      {
        llm,
        financials,
        search: async (_q, filters) => {
          filtersSeen.push(filters);
          return [hit(3)];
        },
      },
      { question: "q", k: 4, filters: { doc_id: "mine" } },
    );
    expect(out.tools_called.map((t) => [t.name, t.ok])).toEqual([
      ["search_documents", false],
      ["drop_tables", false],
      ["get_ratios", false],
      ["search_documents", true],
    ]);
    expect(toolReplies.slice(0, 3).map((r) => JSON.parse(r).error)).toEqual([
      "arguments are not valid JSON",
      "unknown tool 'drop_tables'",
      "cik must be 1-10 digits",
    ]);
    // The request's doc_id replaced the model's; its entity_id (a narrowing) was kept.
    expect(filtersSeen).toEqual([{ doc_id: "mine", entity_id: "e2" }]);
    // No refs cited: the retrieved passages are listed.
    expect(out.citations.map((c) => c.doc_id)).toEqual(["d3"]);
  });

  test("without a model the answer is extractive and says so", async () => {
    const out = await answerQuestion(
      { llm: null, financials, search: async () => [hit(1)] },
      { question: "revenue", k: 3, filters: {} },
    );
    expect(out.mode).toBe("extractive");
    expect(out.answer.startsWith("Extractive answer (no language model)")).toBe(true);
    expect(out.citations).toEqual([
      { ref: "S1", doc_id: "d1", chunk_id: "d1:0", filename: "f1.pdf", page: 1, quote: "Passage 1 about revenue." },
    ]);
  });
});
