/**
 * The language-model port: an OpenAI-compatible chat model with tool calling
 * (adapters/llm). When none is configured, features that use it fall back to a
 * deterministic, clearly labelled answer (ARCHITECTURE "language model").
 */

/** A JSON Schema object describing a tool's arguments. */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model produced (may be invalid: the caller validates it). */
  arguments: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** "auto" lets the model choose; "none" forces a text answer. */
  toolChoice?: "auto" | "none";
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ChatResult {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string | null;
  model: string;
}

export interface ChatModel {
  /** The model name sent with every request. */
  readonly model: string;
  chat(req: ChatRequest): Promise<ChatResult>;
}
