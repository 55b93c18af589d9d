/**
 * A REST reply as a tool result (docs/mcp.md). JSON travels twice, as the protocol advises:
 * structured content (what the output schema describes) and its text rendering. Arrays are
 * wrapped as {items, page} (structured content is an object) and paged to fit the byte budget;
 * an object past the budget has its longest strings cut, each cut marked in place and listed
 * in `_meta`. Binary bodies (XLSX exports) are an embedded resource, base64 with their mime
 * type. A refusal (4xx/5xx) is a tool error carrying the REST body unchanged, so a 422 keeps
 * the spec's validation body.
 */
import { RESULT_OFFSET_ARG, type ToolOperation } from "./catalogue.ts";
import type { ValidationIssue } from "./request.ts";

export type ToolContent =
  | { type: "text"; text: string }
  | { type: "resource"; resource: { uri: string; mimeType: string; blob: string } };

export interface ToolResult {
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface RestReply {
  status: number;
  contentType: string;
  body: Uint8Array;
  /** From Content-Disposition, when the route names its download. */
  filename: string | null;
}

export interface ResultLimits {
  /** Budget for a result's JSON (the structured content; its text rendering is the same size). */
  maxBytes: number;
  /** Largest binary body embedded; past it the result says how to download it over REST. */
  maxBinaryBytes: number;
}

export const STATUS_META = "cairn/http_status";
export const TRUNCATED_META = "cairn/truncated";

const bytesOf = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? "", "utf8");
const restOf = (op: ToolOperation) => `${op.method.toUpperCase()} ${op.path}`;

/** A refusal decided before any REST call (a missing path parameter, a bad result_offset). */
export function validationResult(detail: ValidationIssue[]): ToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify({ detail }) }],
    isError: true,
    _meta: { [STATUS_META]: 422 },
  };
}

export function toolResult(op: ToolOperation, reply: RestReply, offset: number, limits: ResultLimits): ToolResult {
  const meta = { [STATUS_META]: reply.status };
  const text = new TextDecoder().decode(reply.body);
  if (reply.status >= 400) {
    const cut = text.length > limits.maxBytes ? `${text.slice(0, limits.maxBytes)}…[truncated]` : text;
    return { content: [{ type: "text", text: cut }], isError: true, _meta: meta };
  }
  if (!/json/i.test(reply.contentType)) {
    if (reply.body.length === 0)
      return { content: [{ type: "text", text: `No content (HTTP ${reply.status})` }], _meta: meta };
    return binaryResult(op, reply, limits, meta);
  }
  const data = JSON.parse(text) as unknown;
  if (Array.isArray(data)) return arrayResult(data, offset, limits, meta);
  if (data === null || typeof data !== "object") {
    return { content: [{ type: "text", text }], _meta: meta };
  }
  return objectResult(op, data as Record<string, unknown>, limits, meta);
}

function arrayResult(
  items: unknown[],
  offset: number,
  limits: ResultLimits,
  meta: Record<string, unknown>,
): ToolResult {
  const page: unknown[] = [];
  let size = 64; // the envelope
  for (let i = offset; i < items.length; i++) {
    const n = bytesOf(items[i]) + 1;
    // At least one item per page, so paging always moves on.
    if (page.length > 0 && size + n > limits.maxBytes) break;
    page.push(items[i]);
    size += n;
  }
  const next = offset + page.length < items.length ? offset + page.length : null;
  const structured = {
    items: page,
    page: { offset, returned: page.length, total: items.length, next_offset: next },
  };
  const content: ToolContent[] = [{ type: "text", text: JSON.stringify(structured) }];
  if (next !== null) {
    content.push({
      type: "text",
      text: `[truncated: ${page.length} of ${items.length} items from offset ${offset}; call again with ${RESULT_OFFSET_ARG}=${next} for the rest]`,
    });
  }
  return {
    content,
    structuredContent: structured,
    _meta: { ...meta, ...(next !== null ? { [TRUNCATED_META]: { next_offset: next } } : {}) },
  };
}

interface Leaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  path: string;
  length: number;
}

function stringLeaves(value: unknown, path: string, out: Leaf[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (typeof v === "string") out.push({ holder: value, key: i, path: `${path}[${i}]`, length: v.length });
      else stringLeaves(v, `${path}[${i}]`, out);
    });
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      if (typeof v === "string")
        out.push({ holder: value as Record<string, unknown>, key: k, path: p, length: v.length });
      else stringLeaves(v, p, out);
    }
  }
}

function objectResult(
  op: ToolOperation,
  data: Record<string, unknown>,
  limits: ResultLimits,
  meta: Record<string, unknown>,
): ToolResult {
  let size = bytesOf(data);
  if (size <= limits.maxBytes)
    return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data, _meta: meta };
  const copy = structuredClone(data);
  const leaves: Leaf[] = [];
  stringLeaves(copy, "", leaves);
  leaves.sort((a, b) => b.length - a.length);
  const cuts: { path: string; kept: number; length: number }[] = [];
  for (const leaf of leaves) {
    if (size <= limits.maxBytes) break;
    const s = (leaf.holder as Record<string | number, string>)[leaf.key] as string;
    const kept = Math.max(0, s.length - (size - limits.maxBytes) - 80);
    const replaced = `${s.slice(0, kept)}…[truncated ${s.length - kept} of ${s.length} characters]`;
    (leaf.holder as Record<string | number, string>)[leaf.key] = replaced;
    size = bytesOf(copy);
    cuts.push({ path: leaf.path, kept, length: s.length });
  }
  const note = `[truncated: ${cuts.map((c) => `${c.path} keeps ${c.kept} of ${c.length} characters`).join("; ")}; the whole body: REST ${restOf(op)} with the same arguments and X-API-Key]`;
  return {
    content: [
      { type: "text", text: JSON.stringify(copy) },
      { type: "text", text: note },
    ],
    structuredContent: copy,
    _meta: { ...meta, [TRUNCATED_META]: { cuts, rest: restOf(op) } },
  };
}

function binaryResult(
  op: ToolOperation,
  reply: RestReply,
  limits: ResultLimits,
  meta: Record<string, unknown>,
): ToolResult {
  const mimeType = reply.contentType.split(";")[0]?.trim() || op.binary || "application/octet-stream";
  const name = reply.filename ?? op.path.split("/").pop() ?? "download";
  if (reply.body.length > limits.maxBinaryBytes) {
    return {
      content: [
        {
          type: "text",
          text: `${name} (${mimeType}, ${reply.body.length} bytes) is larger than ${limits.maxBinaryBytes} bytes: download it with REST ${restOf(op)} and X-API-Key`,
        },
      ],
      _meta: meta,
    };
  }
  return {
    content: [
      { type: "text", text: `${name}: ${mimeType}, ${reply.body.length} bytes, embedded as a base64 resource` },
      {
        type: "resource",
        resource: {
          uri: `cairn:///${encodeURIComponent(name)}`,
          mimeType,
          blob: Buffer.from(reply.body).toString("base64"),
        },
      },
    ],
    _meta: meta,
  };
}
