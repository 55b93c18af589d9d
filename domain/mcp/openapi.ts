/**
 * The slice of an OpenAPI 3.1 document the tool catalogue reads, and `$ref` inlining: a tool's
 * schemas travel alone (tools/list has no components section), so every reference into
 * `#/components/schemas` is replaced by its target. A reference met again inside itself (a
 * recursive schema) becomes `{}`, any value, rather than looping.
 */

export type JsonSchema = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface OpenApiMedia {
  schema?: JsonSchema;
}

export interface OpenApiOperation {
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, OpenApiMedia> };
  responses?: Record<string, { description?: string; content?: Record<string, OpenApiMedia> }>;
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;

/** Keys of OpenAPI's own that JSON Schema validators do not know (dropped from tool schemas). */
const OPENAPI_ONLY = new Set(["example", "xml", "externalDocs", "discriminator"]);
const REF_PREFIX = "#/components/schemas/";

export function inlineRefs(schema: unknown, doc: OpenApiDocument, seen: readonly string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, doc, seen));
  if (schema === null || typeof schema !== "object") return schema;
  const obj = schema as JsonSchema;
  const ref = obj.$ref;
  if (typeof ref === "string") {
    const name = ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : null;
    const target = name === null ? undefined : doc.components?.schemas?.[name];
    if (name === null || target === undefined || seen.includes(name)) return {};
    const { $ref: _ref, ...siblings } = obj;
    const resolved = inlineRefs(target, doc, [...seen, name]) as JsonSchema;
    return Object.keys(siblings).length === 0
      ? resolved
      : { ...resolved, ...(inlineRefs(siblings, doc, seen) as JsonSchema) };
  }
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(obj)) {
    if (OPENAPI_ONLY.has(k)) continue;
    // `properties` maps names to schemas: a property may well be called "example".
    out[k] =
      k === "properties" && v && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, inlineRefs(s, doc, seen)]))
        : inlineRefs(v, doc, seen);
  }
  return out;
}

/** The first 2xx response of an operation, with its status. */
export function successResponse(
  op: OpenApiOperation,
): { status: number; content: Record<string, OpenApiMedia> } | null {
  const codes = Object.keys(op.responses ?? {})
    .filter((c) => /^2\d\d$/.test(c))
    .sort();
  const first = codes[0];
  if (first === undefined) return null;
  return { status: Number(first), content: op.responses?.[first]?.content ?? {} };
}

export const isJsonMedia = (type: string): boolean => /^application\/([\w.-]+\+)?json$/i.test(type);
