/**
 * The MCP area's service (spec 4.10): the tool catalogue generated from the OpenAPI document
 * (built on first use, when every route is registered), its pages for tools/list, and a
 * tools/call as the REST operation of the tool, run through RestDispatch as the caller, its
 * reply turned into the tool's result (paged, truncated, binary as a resource). Unknown tools
 * and bad cursors are `null` for the transport to answer as protocol errors; bad arguments
 * are tool errors carrying the spec's validation body.
 */
import { buildCatalogue, listPage, type Tool, type ToolDefinition } from "./catalogue.ts";
import type { McpCaller, OpenApiSource, RestDispatch } from "./ports.ts";
import { restRequest, resultOffset } from "./request.ts";
import { type ResultLimits, type ToolResult, toolResult, validationResult } from "./results.ts";

export interface McpToolsOptions {
  openApi: OpenApiSource;
  rest: RestDispatch;
  /** Tools per tools/list page. */
  pageSize: number;
  limits: ResultLimits;
}

export class McpTools {
  private catalogue: Tool[] | null = null;

  constructor(private readonly opts: McpToolsOptions) {}

  tools(): Tool[] {
    this.catalogue ??= buildCatalogue(this.opts.openApi());
    return this.catalogue;
  }

  /** One page of tools/list; null for a cursor this server did not hand out. */
  list(cursor: string | undefined): { tools: ToolDefinition[]; nextCursor?: string } | null {
    return listPage(this.tools(), cursor, this.opts.pageSize);
  }

  /** tools/call; null when no tool has that name. */
  async call(caller: McpCaller, name: string, args: Record<string, unknown>): Promise<ToolResult | null> {
    const tool = this.tools().find((t) => t.definition.name === name);
    if (!tool) return null;
    const offset = resultOffset(args);
    if (typeof offset !== "number") return validationResult(offset);
    const built = restRequest(tool.operation, args);
    if (!built.ok) return validationResult(built.detail);
    const reply = await this.opts.rest.call(built.request, caller);
    return toolResult(tool.operation, reply, offset, this.opts.limits);
  }
}
