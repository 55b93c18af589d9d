/**
 * The agentic answer against a real HTTP server that speaks the OpenAI chat-completions
 * tool-calling protocol (a stand-in for a remote model): the model asks for
 * search_documents (and financial data), gets the caller's ACL'd passages, and answers
 * citing [S1]. A document the caller cannot see never reaches the model or the citations,
 * even when the model asks for it by doc_id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { installedModelsDir } from "../../../test/embedding-models.ts";
import { type Caller, type DocsFixture, startDocsFixture, textFile } from "../../../test/fixtures/documents-app.ts";

const models = installedModelsDir(["bge-small-en-v1.5", "e5-small-v2"], "RAG answers");

interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}
interface WireRequest {
  model: string;
  messages: WireMessage[];
  tools?: { type: string; function: { name: string } }[];
  tool_choice?: string;
}

/** A scripted model: first turn calls tools, second turn answers citing every passage it got. */
function startFakeModel(script: { extraCall?: Record<string, unknown> | undefined; failWith?: number }) {
  const requests: WireRequest[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") return new Response("no", { status: 404 });
      if (script.failWith) return new Response("overloaded", { status: script.failWith });
      const body = (await req.json()) as WireRequest;
      requests.push(body);
      const toolMessages = body.messages.filter((m) => m.role === "tool");
      if (toolMessages.length === 0) {
        const question = body.messages.find((m) => m.role === "user")?.content ?? "";
        const calls = [
          { name: "search_documents", args: { query: question.split("\n")[0] } },
          { name: "get_ratios", args: { cik: "320193", limit: 2 } },
          ...(script.extraCall ? [{ name: "search_documents", args: script.extraCall }] : []),
        ];
        return Response.json({
          id: "chatcmpl-1",
          object: "chat.completion",
          model: "fake-model-1",
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: calls.map((c, i) => ({
                  id: `call_${i}`,
                  type: "function",
                  function: { name: c.name, arguments: JSON.stringify(c.args) },
                })),
              },
            },
          ],
        });
      }
      const refs = toolMessages.flatMap((m) => [...(m.content ?? "").matchAll(/"ref":"(S\d+)"/g)].map((x) => x[1]));
      return Response.json({
        id: "chatcmpl-2",
        object: "chat.completion",
        model: "fake-model-1",
        choices: [
          {
            index: 0,
            finish_reason: "stop",
            message: { role: "assistant", content: `The memo covers the deal ${refs.map((r) => `[${r}]`).join("")}.` },
          },
        ],
      });
    },
  });
  return { server, requests, script, url: `http://127.0.0.1:${server.port}/v1` };
}

describe.skipIf(!models)("POST /v1/rag/answer/agent with a tool-calling model", () => {
  const token = `qvr${crypto.randomUUID().slice(0, 8)}`;
  const secret = `secretword${crypto.randomUUID().slice(0, 6)}`;
  let model: ReturnType<typeof startFakeModel>;
  let fx: DocsFixture;
  let alice: Caller;
  let bob: Caller;
  let wideId: string;
  let privateId: string;

  beforeAll(async () => {
    model = startFakeModel({});
    fx = await startDocsFixture({ CAIRN_LLM_URL: model.url, CAIRN_LLM_MODEL: "fake-model-1" });
    alice = await fx.caller(`rag-a-${crypto.randomUUID()}@example.com`, ["analyst"]);
    bob = await fx.caller(`rag-b-${crypto.randomUUID()}@example.com`, ["viewer"]);
    const wide = await fx.upload(
      alice,
      textFile("wide-memo.txt", `${token} The wide memo says the deal closes in March.`),
    );
    wideId = ((await wide.json()) as { doc_id: string }).doc_id;
    const priv = await fx.upload(
      alice,
      textFile("private-memo.txt", `${token} ${secret} The private price is 42 million.`),
      {
        visibility: "deal_private",
        allowed_identity_ids: String(alice.user.id),
      },
    );
    privateId = ((await priv.json()) as { doc_id: string }).doc_id;
  });
  afterAll(async () => {
    model.server.stop(true);
    await fx.svc.close();
  });

  const ask = async (who: Caller, body: Record<string, unknown>) => {
    const res = await fx.answer(who, body);
    expect(res.status).toBe(200);
    return (await res.json()) as {
      answer: string;
      mode: string;
      model: string | null;
      citations: {
        ref: string;
        doc_id: string;
        chunk_id: string;
        filename: string;
        page: number | null;
        quote: string;
      }[];
      tools_called: { name: string; arguments: Record<string, unknown>; ok: boolean }[];
    };
  };

  test("the model calls the tools and cites passages; mode is llm", async () => {
    model.requests.length = 0;
    const out = await ask(alice, { question: `What does ${token} say about the deal?`, k: 5 });
    expect(out.mode).toBe("llm");
    expect(out.model).toBe("fake-model-1");
    expect(out.tools_called.map((t) => t.name)).toEqual(["search_documents", "get_ratios"]);
    expect(out.tools_called.every((t) => t.ok)).toBe(true);
    expect(out.answer).toContain("[S1]");
    expect(out.citations.map((c) => c.doc_id)).toEqual(expect.arrayContaining([wideId, privateId]));
    const wide = out.citations.find((c) => c.doc_id === wideId);
    expect(wide).toMatchObject({ filename: "wide-memo.txt", page: null, chunk_id: `${wideId}:0` });
    expect(wide?.quote).toContain("deal closes in March");
    // The protocol: tools were offered, and the second request carried the tool results.
    expect(model.requests[0]?.tools?.map((t) => t.function.name)).toContain("search_documents");
    expect(model.requests[1]?.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  test("a document the caller cannot see never reaches the model nor the citations", async () => {
    model.requests.length = 0;
    const out = await ask(bob, { question: `What does ${token} say about the deal?`, k: 5 });
    expect(out.mode).toBe("llm");
    expect(out.citations.map((c) => c.doc_id)).toContain(wideId);
    expect(out.citations.map((c) => c.doc_id)).not.toContain(privateId);
    const sent = JSON.stringify(model.requests);
    expect(sent).toContain("deal closes in March");
    expect(sent).not.toContain(secret);
    expect(sent).not.toContain("private-memo.txt");
    expect(sent).not.toContain(privateId);
  });

  test("the model asking for the hidden document by doc_id gets nothing", async () => {
    model.requests.length = 0;
    model.script.extraCall = { query: secret, doc_id: privateId };
    try {
      const out = await ask(bob, { question: `What does ${token} say about the deal?` });
      const asked = out.tools_called.filter((t) => t.name === "search_documents");
      expect(asked).toHaveLength(2);
      expect(asked[1]?.arguments).toEqual({ query: secret, doc_id: privateId });
      // The tool ran (ok) and returned no passage: the ACL pre-filter, not the model, decides.
      const toolResults = model.requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
      expect(toolResults[2]?.content).toBe('{"passages":[]}');
      expect(JSON.stringify(model.requests)).not.toContain("The private price");
      expect(out.citations.map((c) => c.doc_id)).not.toContain(privateId);
    } finally {
      model.script.extraCall = undefined;
    }
  });

  test("the request's doc_id scope cannot be widened by the model", async () => {
    model.requests.length = 0;
    const out = await ask(alice, { question: `What does ${token} say?`, doc_id: wideId });
    expect(out.citations.every((c) => c.doc_id === wideId)).toBe(true);
    expect(JSON.stringify(model.requests)).not.toContain(secret);
  });
});

describe.skipIf(!models)("a model that is down", () => {
  test("the answer falls back to extractive and says why", async () => {
    const down = startFakeModel({ failWith: 400 });
    const fx = await startDocsFixture({ CAIRN_LLM_URL: down.url, CAIRN_LLM_MODEL: "fake-model-1" });
    try {
      const alice = await fx.caller(`down-${crypto.randomUUID()}@example.com`, ["analyst"]);
      await fx.upload(alice, textFile("memo.txt", "The quarterly memo reports revenue growth of 12 percent."));
      const res = await fx.answer(alice, { question: "What revenue growth does the memo report?" });
      expect(res.status).toBe(200);
      const out = (await res.json()) as {
        mode: string;
        notes: string[];
        citations: { filename: string; quote: string }[];
      };
      expect(out.mode).toBe("extractive");
      expect(out.notes[0]).toContain("language model unavailable");
      expect(out.citations[0]?.filename).toBe("memo.txt");
      expect(out.citations[0]?.quote).toContain("revenue growth of 12 percent");
    } finally {
      down.server.stop(true);
      await fx.svc.close();
    }
  });
});

describe("validation", () => {
  let fx: DocsFixture;
  let alice: Caller;
  beforeAll(async () => {
    fx = await startDocsFixture();
    alice = await fx.caller(`v-${crypto.randomUUID()}@example.com`, ["analyst"]);
  });
  afterAll(() => fx.svc.close());

  test("empty question, k out of range and unknown fields are 422; no key is 401", async () => {
    expect((await fx.answer(alice, { question: "" })).status).toBe(422);
    expect((await fx.answer(alice, { question: "x", k: 0 })).status).toBe(422);
    expect((await fx.answer(alice, { question: "x", k: 21 })).status).toBe(422);
    expect((await fx.answer(alice, { question: "x", roles: ["owner"] })).status).toBe(422);
    const res = await fx.svc.request("/v1/rag/answer/agent", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "x" }),
    });
    expect(res.status).toBe(401);
  });
});
