/**
 * The MCP route's settings on a served service: mounted under CAIRN_DOCS_URL, array results
 * paged to CAIRN_MCP_MAX_RESULT_BYTES with result_offset until every REST item came back, and
 * the Origin rule (listed and loopback origins pass, others are 403 before anything else).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { loadConfig } from "../../config.ts";
import { type McpFixture, startMcpFixture } from "../mcp/fixture.ts";
import { FIXTURE_CIK } from "../sec-fixture.ts";

let m: McpFixture;
let key: string;
let client: Client;
beforeAll(async () => {
  m = await startMcpFixture(
    {
      CAIRN_DOCS_URL: "/api",
      CAIRN_MCP_MAX_RESULT_BYTES: "1024",
      CAIRN_MCP_ALLOWED_ORIGINS: "https://app.example.com",
    },
    "/api/mcp",
  );
  key = await m.fx.svc.apiKey("mcp-config@example.com", "enterprise");
  client = await m.connect(key);
}, 120_000);
afterAll(() => m.close());

describe("MCP settings", () => {
  test("CAIRN_DOCS_URL is the base path: /api/mcp answers, /mcp does not exist", async () => {
    const res = await fetch(`${m.served.url}/mcp`, { method: "POST", headers: { "x-api-key": key } });
    expect(res.status).toBe(404);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(loadConfig({ CAIRN_DOCS_URL: "" }).mcp.path).toBe("/mcp");
    expect(() => loadConfig({ CAIRN_DOCS_URL: "/api/" })).toThrow(/CAIRN_DOCS_URL/);
    expect(() => loadConfig({ CAIRN_MCP_ALLOWED_ORIGINS: "app.example.com" })).toThrow(/CAIRN_MCP_ALLOWED_ORIGINS/);
  });

  test("an array past the byte budget comes in pages that add up to the REST answer", async () => {
    const rest = (await (await m.rest(key, `/v1/financials/${FIXTURE_CIK}/ratios?limit=40`)).json()) as unknown[];
    expect(rest.length).toBeGreaterThan(2);
    const got: unknown[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r = await client.callTool({
        name: "get_v1_financials_cik_ratios",
        arguments: { cik: FIXTURE_CIK, limit: 40, result_offset: offset },
      });
      expect(r.isError).toBeFalsy();
      const s = r.structuredContent as { items: unknown[]; page: { total: number; next_offset: number | null } };
      expect(s.page.total).toBe(rest.length);
      const marker = JSON.stringify(r.content);
      if (s.page.next_offset !== null) expect(marker).toContain(`result_offset=${s.page.next_offset}`);
      got.push(...s.items);
      offset = s.page.next_offset;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(got).toEqual(rest);
    const bad = await client.callTool({
      name: "get_v1_financials_cik_ratios",
      arguments: { cik: FIXTURE_CIK, result_offset: -1 },
    });
    expect(bad.isError).toBe(true);
  });

  test("an Origin that is neither listed nor loopback is 403 before the key is even read", async () => {
    const post = (origin: string, withKey = true) =>
      fetch(m.mcpUrl, {
        method: "POST",
        headers: {
          origin,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(withKey ? { "x-api-key": key } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    expect((await post("https://evil.example.com", false)).status).toBe(403);
    expect((await post("https://evil.example.com")).status).toBe(403);
    expect((await post("https://app.example.com")).status).toBe(200);
    expect((await post("http://localhost:5173")).status).toBe(200);
    expect((await post("https://app.example.com", false)).status).toBe(401);
  });

  test("the body limit and the JSON depth guard run before the protocol reads anything", async () => {
    const headers = {
      "x-api-key": key,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const big = await fetch(m.mcpUrl, { method: "POST", headers, body: `"${"a".repeat(2 * 1024 * 1024)}"` });
    expect(big.status).toBe(413);
    const deep = await fetch(m.mcpUrl, { method: "POST", headers, body: `${"[".repeat(10_000)}${"]".repeat(10_000)}` });
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});
