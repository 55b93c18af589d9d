/**
 * The MCP servers behind the stateless route: each HTTP request borrows one from a bounded
 * pool, connects it to that request's transport, and returns it once answered (building one
 * costs about 0.2 ms of schema set-up, most of a ping; bench/mcp.ts). The caller travels with
 * the request (the transport's authInfo), never in the server. The handlers call the area's
 * service (domain/mcp/service.ts): tools/list pages the catalogue;
 * tools/call runs the tool's REST operation through the same Hono app with the caller's
 * X-API-Key, so authentication, tenant routing, tier rate limits and usage, validation and
 * document access control are those of the REST call.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpCaller, McpTools, RestDispatch, RestReply } from "../../../domain/mcp/index.ts";

/** What a tool call needs of the app: its fetch, as `app.request` offers it. */
export type AppRequest = (url: string, init: RequestInit) => Response | Promise<Response>;

export type Caller = McpCaller;

const SERVER_INFO = { name: "cairn", version: "1.0.0" };
const INSTRUCTIONS =
  "Cairn's REST API as tools: financial statements and ratios, company facts, transcripts, topics, " +
  "presentations, news history, document search and answers, spreadsheet exports. Each tool is one " +
  "REST operation (named by method and path); array results are paged with result_offset.";

/** Idle servers kept for reuse; a burst past this builds more and drops them after. */
const MAX_IDLE_SERVERS = 64;

export class McpServerPool {
  private readonly idle: Server[] = [];

  constructor(private readonly tools: McpTools) {}

  /** Runs `fn` with a server of its own (no other request uses it meanwhile). */
  async with<T>(fn: (server: Server) => Promise<T>): Promise<T> {
    const server = this.idle.pop() ?? makeMcpServer(this.tools);
    try {
      return await fn(server);
    } finally {
      // close() detaches the transport; the handlers stay, ready for the next connect().
      await server.close();
      if (this.idle.length < MAX_IDLE_SERVERS) this.idle.push(server);
    }
  }
}

/** The caller as the route hands it to the transport (AuthInfo: token = the API key). */
export const authInfoOf = (caller: Caller) => ({
  token: caller.apiKey,
  clientId: "api-key",
  scopes: [],
  extra: { requestId: caller.requestId },
});

function callerOf(extra: { authInfo?: { token: string; extra?: Record<string, unknown> } }): Caller {
  const info = extra.authInfo;
  if (!info) throw new McpError(ErrorCode.InternalError, "No caller on this request");
  return { apiKey: info.token, requestId: String(info.extra?.requestId ?? "") };
}

function makeMcpServer(tools: McpTools): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });

  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const page = tools.list(req.params?.cursor);
    if (!page) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
    return page;
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const result = await tools.call(callerOf(extra), req.params.name, args);
    if (!result) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    return result;
  });

  return server;
}

/** RestDispatch over the app's own fetch: a tool call is an in-process REST request with the caller's key. */
export function appDispatch(request: AppRequest): RestDispatch {
  return { call: (r, caller) => callRest(request, r, caller) };
}

async function callRest(
  request: AppRequest,
  r: { method: string; url: string; body?: string },
  caller: Caller,
): Promise<RestReply> {
  const headers: Record<string, string> = { "x-api-key": caller.apiKey, "x-request-id": caller.requestId };
  if (r.body !== undefined) headers["content-type"] = "application/json";
  const res = await request(r.url, { method: r.method, headers, ...(r.body !== undefined ? { body: r.body } : {}) });
  const disposition = res.headers.get("content-disposition") ?? "";
  const filename = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? null;
  return {
    status: res.status,
    contentType: res.headers.get("content-type") ?? "",
    body: new Uint8Array(await res.arrayBuffer()),
    filename,
  };
}
