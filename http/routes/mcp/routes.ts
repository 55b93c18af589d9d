/**
 * The tool-protocol server (spec 4.10) at `{docs_url}/mcp`: the Model Context Protocol over
 * Streamable HTTP (the SDK's web-standard transport), stateless, JSON responses. The API key
 * is checked and the tenant resolved before any protocol message is read: a missing or bad
 * key is the 401 problem document, an inactive tenant its refusal. The body limit of every
 * route (http/body-limit.ts) has run before this handler. Protocol messages themselves
 * (initialize, tools/list) are not metered; each tools/call is metered as the REST call it
 * makes (docs/mcp.md).
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AppError } from "../../../domain/errors.ts";
import { McpTools, type OpenApiDocument } from "../../../domain/mcp/index.ts";
import { DEFAULT_BODY_LIMIT } from "../../body-limit.ts";
import type { AppEnv } from "../../context.ts";
import type { AppDeps } from "../../deps.ts";
import { appDispatch, authInfoOf, McpServerPool } from "./server.ts";

export interface McpRouteSettings {
  /** `${docs_url}/mcp`. */
  path: string;
  /** Browser origins allowed besides loopback ones (config CAIRN_MCP_ALLOWED_ORIGINS). */
  allowedOrigins: string[];
  pageSize: number;
  maxResultBytes: number;
}

export const DEFAULT_MCP_SETTINGS: McpRouteSettings = {
  path: "/mcp",
  allowedOrigins: [],
  pageSize: 50,
  maxResultBytes: 256 * 1024,
};

/** Exports are a few hundred KiB; past this an export is offered as a REST download instead. */
const MAX_BINARY_BYTES = 8 * 1024 * 1024;

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

export function registerMcpRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, settings: McpRouteSettings): void {
  const tools = new McpTools({
    // Read on first use: every route (and so the OpenAPI document) is registered by then.
    openApi: () =>
      app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Cairn API", version: "1.0.0" } }) as OpenApiDocument,
    rest: appDispatch((url, init) => app.request(url, init)),
    pageSize: settings.pageSize,
    limits: { maxBytes: settings.maxResultBytes, maxBinaryBytes: MAX_BINARY_BYTES },
  });
  const pool = new McpServerPool(tools);

  app.all(settings.path, async (c) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !originAllowed(origin, settings.allowedOrigins)) {
      throw new AppError("forbidden", "This Origin may not call the MCP server (CAIRN_MCP_ALLOWED_ORIGINS)");
    }
    const apiKey = c.req.header("x-api-key");
    const identity = await deps.auth.fromApiKey(apiKey);
    await deps.tenantResolver.resolve(identity.tenantId);
    // Stateless: no server-initiated stream to GET, no session to DELETE.
    if (c.req.method !== "POST") return jsonRpcError(405, -32000, "Method not allowed.", { Allow: "POST" });

    // Parsed here, not by the transport, so the JSON depth guard (http/json-depth.ts) applies.
    let parsedBody: unknown;
    if (/json/i.test(c.req.header("content-type") ?? "")) {
      try {
        parsedBody = await c.req.json();
      } catch {
        return jsonRpcError(400, -32700, "Parse error: the body is not JSON or is nested too deeply");
      }
    }
    const caller = { apiKey: apiKey as string, requestId: c.get("requestId") };
    return pool.with(async (server) => {
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: DEFAULT_BODY_LIMIT,
      });
      await server.connect(transport);
      return transport.handleRequest(c.req.raw, {
        authInfo: authInfoOf(caller),
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
    });
  });
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The transport's DNS-rebinding rule: a browser page may call only from a listed origin or
 * from this machine. A rebinding page has its own (non-loopback) origin, whatever Host it sends.
 */
function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin.replace(/\/$/, ""))) return true;
  try {
    return LOOPBACK.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}
