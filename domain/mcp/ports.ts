/** What the MCP tools need from outside the domain: the REST API itself, and the OpenAPI document. */
import type { OpenApiDocument } from "./openapi.ts";
import type { RestRequest } from "./request.ts";
import type { RestReply } from "./results.ts";

/** The caller of a tool: the API key it authenticated with (sent on to the REST call). */
export interface McpCaller {
  apiKey: string;
  requestId: string;
}

/**
 * Runs one REST operation as the caller, through the same handlers as an HTTP request
 * (authentication, tenant routing, rate limits and usage, validation, document access).
 */
export interface RestDispatch {
  call(request: RestRequest, caller: McpCaller): Promise<RestReply>;
}

/** The service's OpenAPI document, read once every route is registered. */
export type OpenApiSource = () => OpenApiDocument;
