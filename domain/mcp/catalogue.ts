/**
 * The tool catalogue, generated from the OpenAPI document (never written by hand): a route
 * with an OpenAPI schema that passes `eligibility` becomes a tool with no further code.
 *
 * Eligible (docs/mcp.md): an operation whose only security requirement is the API key header
 * (what an MCP caller carries, spec 4.10), that is not a WebSocket upgrade (a 101 response),
 * not a DELETE (agents read, export and share; they do not remove), and whose request body,
 * if any, is JSON (a multipart upload cannot be tool arguments). Admin-key, JWT and internal
 * routes fail the first rule.
 */
import { toolNames } from "./names.ts";
import {
  HTTP_METHODS,
  inlineRefs,
  isJsonMedia,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiOperation,
  successResponse,
} from "./openapi.ts";

/** The argument that pages an array result (added to tools whose result is an array). */
export const RESULT_OFFSET_ARG = "result_offset";

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  outputSchema?: JsonSchema & { type: "object" };
  /** GET operations are read-only; nothing else is claimed about the others. */
  annotations: { readOnlyHint: boolean };
}

/** How a tool's arguments become the REST request, and what its result is. */
export interface ToolOperation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** none: no body; merged: the body's properties are top-level arguments; nested: under `body`. */
  body: "none" | "merged" | "nested";
  bodyProps: string[];
  /** The success result is a JSON array (paged by result_offset, wrapped as {items, page}). */
  arrayResult: boolean;
  /** Mime type of a non-JSON success response (an XLSX export), else null. */
  binary: string | null;
}

export interface Tool {
  definition: ToolDefinition;
  operation: ToolOperation;
}

export function eligible(method: string, op: OpenApiOperation): boolean {
  const security = op.security ?? [];
  const keyOnly =
    security.length === 1 && Object.keys(security[0] ?? {}).length === 1 && security[0]?.apiKeyHeader !== undefined;
  if (!keyOnly || method === "delete") return false;
  if (op.responses?.["101"] !== undefined) return false;
  const body = op.requestBody?.content;
  return body === undefined || Object.keys(body).some(isJsonMedia);
}

/** Every eligible operation as a tool, in document order. */
export function buildCatalogue(doc: OpenApiDocument): Tool[] {
  const ops: { method: string; path: string; op: OpenApiOperation }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op && eligible(method, op)) ops.push({ method, path, op });
    }
  }
  const names = toolNames(ops);
  return ops.map(({ method, path, op }, i) => toTool(names[i] as string, method, path, op, doc));
}

function toTool(name: string, method: string, path: string, op: OpenApiOperation, doc: OpenApiDocument): Tool {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in !== "path" && p.in !== "query") continue;
    (p.in === "path" ? pathParams : queryParams).push(p.name);
    const schema = (inlineRefs(p.schema ?? {}, doc) as JsonSchema) ?? {};
    properties[p.name] = p.description && !schema.description ? { ...schema, description: p.description } : schema;
    if (p.required || p.in === "path") required.push(p.name);
  }

  let body: ToolOperation["body"] = "none";
  let bodyProps: string[] = [];
  const media = Object.entries(op.requestBody?.content ?? {}).find(([type]) => isJsonMedia(type))?.[1];
  if (media) {
    const schema = inlineRefs(media.schema ?? {}, doc) as JsonSchema;
    const props = schema.type === "object" ? (schema.properties as Record<string, unknown> | undefined) : undefined;
    const clash = props && Object.keys(props).some((k) => k in properties || k === RESULT_OFFSET_ARG);
    if (props && !clash) {
      body = "merged";
      bodyProps = Object.keys(props);
      Object.assign(properties, props);
      for (const r of (schema.required as string[] | undefined) ?? []) required.push(r);
    } else {
      body = "nested";
      properties.body = schema;
      if (op.requestBody?.required) required.push("body");
    }
  }

  const success = successResponse(op);
  const jsonOut = Object.entries(success?.content ?? {}).find(([type]) => isJsonMedia(type))?.[1];
  const binaryType = Object.keys(success?.content ?? {}).find((type) => !isJsonMedia(type)) ?? null;
  const out = jsonOut?.schema ? (inlineRefs(jsonOut.schema, doc) as JsonSchema) : null;
  const arrayResult = out?.type === "array";
  if (arrayResult) {
    properties[RESULT_OFFSET_ARG] = {
      type: "integer",
      minimum: 0,
      default: 0,
      description: "Array results longer than one tool result are paged: pass page.next_offset to get the rest",
    };
  }

  const definition: ToolDefinition = {
    name,
    description: [op.summary ?? `${method.toUpperCase()} ${path}`, `(REST: ${method.toUpperCase()} ${path})`].join(" "),
    inputSchema: { type: "object", properties, ...(required.length > 0 ? { required: [...new Set(required)] } : {}) },
    annotations: { readOnlyHint: method === "get" },
  };
  const outputSchema = out ? outputSchemaOf(out, arrayResult) : undefined;
  if (outputSchema) definition.outputSchema = outputSchema;
  return {
    definition,
    operation: {
      method,
      path,
      pathParams,
      queryParams,
      body,
      bodyProps,
      arrayResult,
      binary: jsonOut ? null : binaryType,
    },
  };
}

/** Structured content is a JSON object: arrays travel as {items, page} (results.ts). */
function outputSchemaOf(out: JsonSchema, arrayResult: boolean): (JsonSchema & { type: "object" }) | undefined {
  if (arrayResult) {
    return {
      type: "object",
      properties: {
        items: out,
        page: {
          type: "object",
          properties: {
            offset: { type: "integer" },
            returned: { type: "integer" },
            total: { type: "integer" },
            next_offset: { type: ["integer", "null"] },
          },
          required: ["offset", "returned", "total", "next_offset"],
        },
      },
      required: ["items", "page"],
    };
  }
  return out.type === "object" ? (out as JsonSchema & { type: "object" }) : undefined;
}

/** One page of tools/list: an opaque cursor (the offset, base64url) and the next one. */
export function listPage(
  tools: readonly Tool[],
  cursor: string | undefined,
  pageSize: number,
): { tools: ToolDefinition[]; nextCursor?: string } | null {
  let offset = 0;
  if (cursor !== undefined) {
    const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!m || Number(m[1]) > tools.length) return null;
    offset = Number(m[1]);
  }
  const end = offset + pageSize;
  const page = tools.slice(offset, end).map((t) => t.definition);
  return end < tools.length
    ? { tools: page, nextCursor: Buffer.from(`o:${end}`).toString("base64url") }
    : { tools: page };
}
