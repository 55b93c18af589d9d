/**
 * Request generation from an OpenAPI 3.1 document for the hostile-input fuzz suite: a
 * valid-ish value for a schema (examples, enums, formats and bounds honoured where cheap)
 * and a pool of hostile values (wrong types, huge, deep, NUL, traversal). Driven by the
 * seeded PRNG of test/prng.ts so a failing case replays from its seed.
 */
import type { Prng } from "../prng.ts";

export type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  prefixItems?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  additionalProperties?: boolean | Schema;
};

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  path: string;
  security: Record<string, string[]>[];
  parameters: Parameter[];
  /** The JSON body schema, when the operation takes one. */
  jsonBody: Schema | null;
  bodyTypes: string[];
  bodyRequired: boolean;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: { schemas?: Record<string, Schema> };
}

export function operations(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content ?? {};
      out.push({
        method: method.toUpperCase(),
        path,
        security: (op.security as Record<string, string[]>[] | undefined) ?? [],
        parameters: (op.parameters as Parameter[] | undefined) ?? [],
        jsonBody: content["application/json"]?.schema ?? null,
        bodyTypes: Object.keys(content),
        bodyRequired: Boolean((op.requestBody as { required?: boolean } | undefined)?.required),
      });
    }
  }
  return out;
}

export function resolve(doc: OpenApiDoc, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 10; i++) {
    const name = s.$ref.split("/").at(-1) ?? "";
    s = doc.components?.schemas?.[name] ?? {};
  }
  return s;
}

function typeOf(s: Schema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== "null") ?? s.type[0];
  return s.type;
}

const FORMAT_VALUES: Record<string, () => string> = {
  uuid: () => crypto.randomUUID(),
  "date-time": () => new Date(Date.UTC(2024, 0, 2)).toISOString(),
  date: () => "2024-01-02",
  email: () => "someone@example.com",
  uri: () => "https://example.com/x",
  url: () => "https://example.com/x",
};

/** A value that should pass the schema, or come close (patterns are not solved). */
export function sample(doc: OpenApiDoc, schema: Schema | undefined, rng: Prng, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (s.const !== undefined) return s.const;
  if (s.example !== undefined) return s.example;
  if (s.examples?.length) return rng.pick(s.examples);
  if (s.enum?.length) return rng.pick(s.enum);
  if (s.default !== undefined && rng.bool(0.3)) return s.default;
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return sample(doc, rng.pick(alt), rng, depth + 1);
  if (s.allOf?.length) {
    return Object.assign({}, ...s.allOf.map((x) => sample(doc, x, rng, depth + 1) as Record<string, unknown>));
  }
  switch (typeOf(s)) {
    case "object": {
      const obj: Record<string, unknown> = {};
      if (depth > 6) return obj;
      for (const [k, v] of Object.entries(s.properties ?? {})) {
        if (s.required?.includes(k) || rng.bool(0.5)) obj[k] = sample(doc, v, rng, depth + 1);
      }
      return obj;
    }
    case "array": {
      if (s.prefixItems) return s.prefixItems.map((x) => sample(doc, x, rng, depth + 1));
      const n = Math.max(s.minItems ?? 0, depth > 6 ? 0 : rng.int(3));
      return Array.from({ length: n }, () => sample(doc, s.items, rng, depth + 1));
    }
    case "integer": {
      const lo = s.minimum ?? 0;
      const hi = Math.min(s.maximum ?? lo + 100, lo + 1000);
      return lo + rng.int(hi - lo + 1);
    }
    case "number":
      return (s.minimum ?? 0) + rng.next() * 10;
    case "boolean":
      return rng.bool();
    case "null":
      return null;
    case "string": {
      const make = s.format ? FORMAT_VALUES[s.format] : undefined;
      if (make) return make();
      const len = Math.max(s.minLength ?? 1, Math.min(s.maxLength ?? 12, 12));
      return "abcdefghijklmnop".repeat(Math.ceil(len / 16)).slice(0, len);
    }
    default:
      return rng.pick(["x", 1, true, null]);
  }
}

/** Nested arrays `depth` deep. */
export const nested = (depth: number): string => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

/** Values of the wrong type, size or content for any field. */
export function hostileValue(rng: Prng): unknown {
  return rng.pick<() => unknown>([
    () => "x".repeat(200_000),
    () => "\u0000\u0001\u001f",
    () => "💥\u202e\uffff\ud800",
    () => -1,
    () => 2 ** 63,
    () => -(2 ** 53) - 7,
    () => 1e308,
    () => 0.1,
    () => true,
    () => null,
    () => [],
    () => [1, "2", null],
    () => ({}),
    () => ({ $ne: null, __proto__: { admin: true } }),
    () => "../../../../etc/passwd",
    () => "' OR 1=1 --",
    () => "<script>alert(1)</script>",
    () => "https://user:pass@evil.example/",
    () => "2024-13-45T99:99:99Z",
    () => JSON.parse(nested(40)),
  ])();
}

/** Strings for path segments: traversal, encodings, NUL, huge, numbers at the edges. */
export const HOSTILE_SEGMENTS = [
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e",
  "%00",
  "%E2%80%AE",
  "%FF%FE",
  encodeURIComponent("💥"),
  "a".repeat(3000),
  "-1",
  "0",
  "99999999999999999999999",
  "1e309",
  "NaN",
  "null",
  "%27%20OR%201%3D1--",
  crypto.randomUUID().toUpperCase(),
];

/** Hostile query values (already URL-encoded). */
export const HOSTILE_QUERY = [
  "",
  "-1",
  "99999999999999999999",
  "1.5",
  "abc",
  "%00",
  "x".repeat(5000),
  "%FF",
  "true",
  "[]",
  "%7B%22a%22%3A1%7D",
  "2024-02-30",
];

/** Raw bodies that are not JSON, or are JSON of the wrong shape. */
export const HOSTILE_RAW_BODIES = [
  "",
  "{",
  '{"a":',
  "nul",
  "[]",
  "null",
  "0",
  '"string"',
  "{}{}",
  '{"a":1,"a":2}',
  "\u0000",
  '{"__proto__":{"polluted":true}}',
  `{"k":"${"\\u0000".repeat(50)}"}`,
];
