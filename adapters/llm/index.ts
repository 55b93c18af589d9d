export { LlmError, OpenAiChatModel, type OpenAiChatOptions, parseCompletion } from "./openai.ts";
