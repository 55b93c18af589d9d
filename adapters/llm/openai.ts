/**
 * An OpenAI-compatible chat-completions client with tool calling (OpenAI, vLLM, llama.cpp
 * server, Ollama's /v1, LiteLLM, TGI's messages API...). Plain fetch: the protocol is a
 * single JSON POST, and a vendor SDK would pin us to one vendor's extensions.
 *
 * Every call is bounded: a timeout, a cap on the response size, and at most `retries`
 * retries of 429/5xx/network failures with exponential backoff (Retry-After honoured up
 * to the backoff ceiling).
 */
import type { ChatMessage, ChatModel, ChatRequest, ChatResult, ToolCall } from "../../domain/llm.ts";

export interface OpenAiChatOptions {
  /** Base URL, e.g. `https://api.openai.com/v1`; a URL ending in /chat/completions is used as is. */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  retries?: number;
  /** Largest response body accepted. */
  maxResponseBytes?: number;
  /** First backoff; doubles per retry. */
  backoffMs?: number;
}

export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);
const MAX_BACKOFF_MS = 8_000;

export class OpenAiChatModel implements ChatModel {
  readonly model: string;
  private readonly endpoint: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxBytes: number;
  private readonly backoffMs: number;

  constructor(opts: OpenAiChatOptions) {
    const base = opts.url.replace(/\/+$/, "");
    this.endpoint = base.endsWith("/chat/completions") ? base : `${base}/chat/completions`;
    this.model = opts.model;
    this.apiKey = opts.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.retries = opts.retries ?? 2;
    this.maxBytes = opts.maxResponseBytes ?? 4 * 1024 * 1024;
    this.backoffMs = opts.backoffMs ?? 500;
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const body = JSON.stringify({
      model: this.model,
      messages: req.messages.map(toWire),
      ...(req.tools && req.tools.length > 0
        ? {
            tools: req.tools.map((t) => ({
              type: "function",
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
            tool_choice: req.toolChoice ?? "auto",
          }
        : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
    });
    let attempt = 0;
    for (;;) {
      const outcome = await this.once(body, req.signal);
      if (outcome.ok) return outcome.result;
      if (!outcome.retryable || attempt >= this.retries || req.signal?.aborted) throw outcome.error;
      const backoff = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2 ** attempt);
      await Bun.sleep(Math.min(MAX_BACKOFF_MS, Math.max(backoff, outcome.retryAfterMs ?? 0)));
      attempt += 1;
    }
  }

  private async once(
    body: string,
    signal: AbortSignal | undefined,
  ): Promise<
    { ok: true; result: ChatResult } | { ok: false; error: LlmError; retryable: boolean; retryAfterMs?: number }
  > {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        },
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      const timedOut = timeout.aborted;
      const msg = timedOut ? `timed out after ${this.timeoutMs} ms` : (err as Error).message;
      return {
        ok: false,
        error: new LlmError(`language model request failed: ${msg}`, null),
        retryable: !signal?.aborted,
      };
    }
    let text: string;
    try {
      text = await readCapped(res, this.maxBytes);
    } catch (err) {
      return { ok: false, error: new LlmError((err as Error).message, res.status), retryable: false };
    }
    if (!res.ok) {
      const retryAfter = Number(res.headers.get("retry-after"));
      return {
        ok: false,
        error: new LlmError(`language model answered ${res.status}: ${text.slice(0, 300)}`, res.status),
        retryable: RETRYABLE.has(res.status),
        retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      };
    }
    try {
      return { ok: true, result: parseCompletion(text, this.model) };
    } catch (err) {
      return { ok: false, error: new LlmError((err as Error).message, res.status), retryable: false };
    }
  }
}

function toWire(m: ChatMessage): Record<string, unknown> {
  if (m.role === "assistant") {
    return {
      role: "assistant",
      content: m.content,
      ...(m.tool_calls && m.tool_calls.length > 0
        ? {
            tool_calls: m.tool_calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : {}),
    };
  }
  return m;
}

async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    throw new LlmError(`language model response too large (${declared} bytes)`, res.status);
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new LlmError(`language model response larger than ${max} bytes`, res.status);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString("utf8");
}

interface WireToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/** Reads the first choice of a chat-completions response. */
export function parseCompletion(text: string, fallbackModel: string): ChatResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LlmError("language model answered with invalid JSON", 200);
  }
  const obj = json as {
    model?: unknown;
    choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[];
  };
  const choice = Array.isArray(obj.choices) ? obj.choices[0] : undefined;
  if (!choice?.message) throw new LlmError("language model response has no choices[0].message", 200);
  const rawCalls = Array.isArray(choice.message.tool_calls) ? (choice.message.tool_calls as WireToolCall[]) : [];
  const toolCalls: ToolCall[] = rawCalls
    .filter((c) => c.function && typeof c.function.name === "string")
    .map((c, i) => ({
      id: typeof c.id === "string" && c.id ? c.id : `call_${i}`,
      name: c.function?.name as string,
      arguments:
        typeof c.function?.arguments === "string" ? c.function.arguments : JSON.stringify(c.function?.arguments ?? {}),
    }));
  return {
    content: typeof choice.message.content === "string" ? choice.message.content : null,
    toolCalls,
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    model: typeof obj.model === "string" ? obj.model : fallbackModel,
  };
}
