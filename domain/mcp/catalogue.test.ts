import { describe, expect, test } from "bun:test";
import { buildCatalogue, listPage } from "./catalogue.ts";
import { baseToolName, isToolName, toolNames } from "./names.ts";
import type { OpenApiDocument } from "./openapi.ts";
import { restRequest } from "./request.ts";

const KEY = [{ apiKeyHeader: [] }];
const ok = (schema: Record<string, unknown>) => ({ 200: { content: { "application/json": { schema } } } });

const doc: OpenApiDocument = {
  components: {
    schemas: {
      Row: { type: "object", properties: { a: { type: "string" }, self: { $ref: "#/components/schemas/Row" } } },
      Body: {
        type: "object",
        properties: { tickers: { type: "array" }, cik: { type: "string" } },
        required: ["tickers"],
      },
    },
  },
  paths: {
    "/v1/things/{cik}": {
      get: {
        summary: "Things",
        security: KEY,
        parameters: [
          { name: "cik", in: "path", required: true, schema: { type: "string", example: "1" } },
          { name: "limit", in: "query", schema: { type: "integer" } },
        ],
        responses: ok({ type: "array", items: { $ref: "#/components/schemas/Row" } }),
      },
      delete: { security: KEY, responses: { 204: {} } },
      post: {
        security: KEY,
        parameters: [{ name: "cik", in: "path", required: true, schema: { type: "string" } }],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Body" } } },
        },
        responses: { 200: { content: { "application/vnd.ms-excel": { schema: { type: "string" } } } } },
      },
    },
    "/v1/admin/x": { get: { security: [{ adminKey: [] }], responses: ok({ type: "object" }) } },
    "/v1/user/x": { get: { security: [{ bearerAuth: [] }], responses: ok({ type: "object" }) } },
    "/v1/both": { get: { security: [{ apiKeyHeader: [], bearerAuth: [] }], responses: ok({ type: "object" }) } },
    "/v1/stream": { get: { security: KEY, responses: { 101: {} } } },
    "/v1/upload": {
      post: {
        security: KEY,
        requestBody: { content: { "multipart/form-data": {} } },
        responses: ok({ type: "object" }),
      },
    },
  },
};

describe("tool names", () => {
  test("method and path, braces dropped, within the protocol's character set", () => {
    expect(baseToolName("GET", "/v1/financials/{cik}/ratios")).toBe("get_v1_financials_cik_ratios");
    expect(baseToolName("get", "/v1/financials/{cik}/revenue-segments")).toBe("get_v1_financials_cik_revenue-segments");
  });

  test("a long path keeps a readable head and a stable hash, at most 64 characters", () => {
    const path = `/v1/${"very-long-segment/".repeat(6)}{id}`;
    const name = baseToolName("post", path);
    expect(name.length).toBe(64);
    expect(isToolName(name)).toBe(true);
    expect(name.startsWith("post_v1_very-long-segment")).toBe(true);
    expect(baseToolName("post", path)).toBe(name);
    expect(baseToolName("post", `${path}x`)).not.toBe(name);
  });

  test("colliding names both get their own hash, whatever the order", () => {
    const a = { method: "get", path: "/v1/companies/{cik}" };
    const b = { method: "get", path: "/v1/companies/cik" };
    const c = { method: "get", path: "/v1/other" };
    const [na, nb, nc] = toolNames([a, b, c]);
    expect(na).not.toBe(nb);
    expect(nc).toBe("get_v1_other");
    expect(toolNames([b, a])).toEqual([nb as string, na as string]);
    for (const n of [na, nb]) expect(n).toMatch(/^get_v1_companies_cik_[0-9a-f]{8}$/);
  });
});

describe("the catalogue", () => {
  const tools = buildCatalogue(doc);

  test("API-key operations only: no admin, JWT, key-and-JWT, DELETE, WebSocket or multipart", () => {
    expect(tools.map((t) => t.definition.name)).toEqual(["get_v1_things_cik", "post_v1_things_cik"]);
  });

  test("path and query merged, required kept, refs inlined (a recursive one cut), OpenAPI-only keys dropped", () => {
    const get = tools[0]?.definition;
    expect(get?.inputSchema.required).toEqual(["cik"]);
    expect(get?.inputSchema.properties).toMatchObject({ cik: { type: "string" }, limit: { type: "integer" } });
    expect(JSON.stringify(get?.inputSchema)).not.toContain("example");
    type Items = { items: { items: { properties: Record<string, unknown> } } };
    const items = (get?.outputSchema?.properties ?? {}) as unknown as Items;
    expect(items.items.items.properties.a).toEqual({ type: "string" });
    expect(items.items.items.properties.self).toEqual({});
    expect(tools[0]?.operation.arrayResult).toBe(true);
  });

  test("a body whose property clashes with a parameter is nested under `body`; a binary result has no output schema", () => {
    const post = tools[1];
    expect(post?.operation.body).toBe("nested");
    expect(post?.definition.inputSchema.required).toEqual(["cik", "body"]);
    expect(post?.definition.outputSchema).toBeUndefined();
    expect(post?.operation.binary).toBe("application/vnd.ms-excel");
  });

  test("tools/list pages with an opaque cursor; a foreign cursor is refused", () => {
    const first = listPage(tools, undefined, 1);
    expect(first?.tools.map((t) => t.name)).toEqual(["get_v1_things_cik"]);
    const second = listPage(tools, first?.nextCursor, 1);
    expect(second?.tools.map((t) => t.name)).toEqual(["post_v1_things_cik"]);
    expect(second?.nextCursor).toBeUndefined();
    expect(listPage(tools, "garbage", 1)).toBeNull();
    expect(listPage(tools, Buffer.from("o:99").toString("base64url"), 1)).toBeNull();
  });
});

describe("arguments as the REST request", () => {
  const [get, post] = buildCatalogue(doc);

  test("path parameters encoded into the path, query parameters into the query string", () => {
    const r = restRequest(get?.operation as never, { cik: "a/b", limit: 3, result_offset: 2 });
    expect(r).toEqual({ ok: true, request: { method: "GET", url: "/v1/things/a%2Fb?limit=3" } });
  });

  test("a nested body travels as the JSON body; a missing path parameter is the spec's validation detail", () => {
    const r = restRequest(post?.operation as never, { cik: "1", body: { tickers: ["A"] } });
    expect(r).toEqual({ ok: true, request: { method: "POST", url: "/v1/things/1", body: '{"tickers":["A"]}' } });
    const missing = restRequest(post?.operation as never, {});
    expect(missing).toEqual({
      ok: false,
      detail: [{ loc: ["path", "cik"], msg: "Field required", type: "missing", input: null, ctx: {} }],
    });
  });
});
