/**
 * A tool call's arguments as the REST request of its operation: path parameters into the
 * path, query parameters into the query string, the rest as the JSON body. Type checks are
 * left to the route (its validator answers 422 with the spec's body); only what would make
 * the request unroutable, a missing path parameter, is refused here, in the same body.
 */
import { RESULT_OFFSET_ARG, type ToolOperation } from "./catalogue.ts";

export interface RestRequest {
  method: string;
  /** Path and query string. */
  url: string;
  /** JSON text, when the operation takes a body. */
  body?: string;
}

export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

const asQueryValue = (v: unknown): string => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));

export function restRequest(
  op: ToolOperation,
  args: Record<string, unknown>,
): { ok: true; request: RestRequest } | { ok: false; detail: ValidationIssue[] } {
  const missing = op.pathParams.filter((p) => args[p] === undefined || args[p] === null || args[p] === "");
  if (missing.length > 0) {
    return {
      ok: false,
      detail: missing.map((p) => ({ loc: ["path", p], msg: "Field required", type: "missing", input: null, ctx: {} })),
    };
  }
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name])));
  const query = new URLSearchParams();
  for (const q of op.queryParams) {
    const v = args[q];
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) query.append(q, asQueryValue(item));
  }
  const qs = query.toString();
  const request: RestRequest = { method: op.method.toUpperCase(), url: qs ? `${path}?${qs}` : path };
  if (op.body === "merged") {
    const body: Record<string, unknown> = {};
    for (const k of op.bodyProps) if (args[k] !== undefined) body[k] = args[k];
    request.body = JSON.stringify(body);
  } else if (op.body === "nested") {
    request.body = JSON.stringify(args.body ?? {});
  }
  return { ok: true, request };
}

/** The page an array result starts at (an invalid value is the caller's 422, like any argument). */
export function resultOffset(args: Record<string, unknown>): number | ValidationIssue[] {
  const v = args[RESULT_OFFSET_ARG];
  if (v === undefined || v === null) return 0;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
  return [
    {
      loc: ["arguments", RESULT_OFFSET_ARG],
      msg: "Input should be an integer greater than or equal to 0",
      type: "greater_than_equal",
      input: v,
      ctx: { ge: 0 },
    },
  ];
}
