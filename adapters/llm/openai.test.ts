/** The chat client against a real local HTTP server speaking the chat-completions protocol. */
import { afterEach, describe, expect, test } from "bun:test";
import { LlmError, OpenAiChatModel } from "./openai.ts";

let server: ReturnType<typeof Bun.serve> | null = null;
afterEach(() => {
  server?.stop(true);
  server = null;
});

const completion = (message: Record<string, unknown>) =>
  Response.json({ id: "x", model: "m-served", choices: [{ index: 0, finish_reason: "stop", message }] });

describe("OpenAiChatModel", () => {
  test("sends tools, messages and the API key; parses tool calls", async () => {
    const seen: { auth: string | null; body: Record<string, unknown> }[] = [];
    server = Bun.serve({
      port: 0,
      async fetch(req) {
        seen.push({ auth: req.headers.get("authorization"), body: (await req.json()) as Record<string, unknown> });
        return completion({
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } }],
        });
      },
    });
    const llm = new OpenAiChatModel({ url: `http://127.0.0.1:${server.port}/v1/`, model: "m", apiKey: "sk-test" });
    const out = await llm.chat({
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: [{ id: "c0", name: "lookup", arguments: "{}" }] },
        { role: "tool", tool_call_id: "c0", content: "[]" },
      ],
      tools: [{ name: "lookup", description: "d", parameters: { type: "object", properties: {} } }],
    });
    expect(out).toEqual({
      content: null,
      toolCalls: [{ id: "c1", name: "lookup", arguments: '{"q":"x"}' }],
      finishReason: "stop",
      model: "m-served",
    });
    expect(seen[0]?.auth).toBe("Bearer sk-test");
    expect(seen[0]?.body).toMatchObject({
      model: "m",
      tool_choice: "auto",
      tools: [{ type: "function", function: { name: "lookup" } }],
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c0", type: "function", function: { name: "lookup", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c0", content: "[]" },
      ],
    });
  });

  test("retries 503 then succeeds; gives up on 400 at once", async () => {
    let calls = 0;
    server = Bun.serve({
      port: 0,
      fetch() {
        calls += 1;
        if (calls === 1) return new Response("busy", { status: 503 });
        if (calls === 2) return completion({ role: "assistant", content: "done" });
        return new Response("bad", { status: 400 });
      },
    });
    const llm = new OpenAiChatModel({ url: `http://127.0.0.1:${server.port}/v1`, model: "m", backoffMs: 10 });
    expect((await llm.chat({ messages: [{ role: "user", content: "x" }] })).content).toBe("done");
    const err = await llm.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).status).toBe(400);
    expect(calls).toBe(3);
  });

  test("a response without choices is an error", async () => {
    server = Bun.serve({ port: 0, fetch: () => Response.json({ error: "nope" }) });
    const llm = new OpenAiChatModel({ url: `http://127.0.0.1:${server.port}/v1/chat/completions`, model: "m" });
    await expect(llm.chat({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow("no choices");
  });
});
