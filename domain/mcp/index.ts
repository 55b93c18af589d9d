/** The MCP tool catalogue (spec 4.10): tools generated from the OpenAPI document, their REST calls and results. */
export {
  buildCatalogue,
  eligible,
  listPage,
  RESULT_OFFSET_ARG,
  type Tool,
  type ToolDefinition,
  type ToolOperation,
} from "./catalogue.ts";
export { baseToolName, isToolName, MAX_TOOL_NAME, toolNames } from "./names.ts";
export type { OpenApiDocument } from "./openapi.ts";
export type { McpCaller, OpenApiSource, RestDispatch } from "./ports.ts";
export { type RestRequest, restRequest, resultOffset, type ValidationIssue } from "./request.ts";
export {
  type RestReply,
  type ResultLimits,
  STATUS_META,
  type ToolContent,
  type ToolResult,
  TRUNCATED_META,
  toolResult,
  validationResult,
} from "./results.ts";
export { McpTools, type McpToolsOptions } from "./service.ts";
