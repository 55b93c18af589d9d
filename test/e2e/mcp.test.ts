/**
 * The MCP server (spec 4.10) with the SDK's own client over Streamable HTTP against a served
 * service with the demo data: the tool list is the eligible operations of /openapi.json, every
 * 4.4 tool answers what REST answers, refusals are tool errors carrying the REST body, a
 * missing key is a 401 before any session, and tool calls are REST calls for usage and limits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import JSZip from "jszip";
import { type McpFixture, startMcpFixture } from "../mcp/fixture.ts";
import { FIXTURE_CIK } from "../sec-fixture.ts";
import { sharedData } from "../shared-data.ts";

interface Op {
  security?: Record<string, string[]>[];
  summary?: string;
  responses?: Record<string, unknown>;
  requestBody?: { content?: Record<string, unknown> };
}

/** The rule of docs/mcp.md, restated from the document alone: API key only, no upgrade, no DELETE, JSON bodies. */
function eligibleOperations(doc: { paths: Record<string, Record<string, Op>> }): Map<string, Op & { key: string }> {
  const out = new Map<string, Op & { key: string }>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const keyOnly = JSON.stringify(op.security ?? []) === JSON.stringify([{ apiKeyHeader: [] }]);
      const body = op.requestBody?.content;
      const jsonBody = !body || Object.keys(body).includes("application/json");
      if (!keyOnly || method === "delete" || op.responses?.["101"] || !jsonBody) continue;
      const name = `${method}_${path}`
        .replace(/[{}]/g, "")
        .replace(/[^A-Za-z0-9_-]+/g, "_")
        .replace(/_+/g, "_");
      out.set(name, { ...op, key: `${method.toUpperCase()} ${path}` });
    }
  }
  return out;
}

/** Spec 4.4's table, and the further endpoints it names as tools. */
const SPEC_TOOLS = [
  "get_v1_financials_cik_ratios",
  "get_v1_financials_cik_income",
  "get_v1_transcripts",
  "get_v1_companies_cik_topics_extracted",
  "get_v1_topics_emerging_emerging_topic_id_companies",
  "get_v1_presentations_accession_number",
  "get_v1_news_article_id",
  "get_v1_companies_cik",
  "get_v1_financials_cik_revenue-segments",
  "get_v1_export_financials_cik",
  "post_v1_export_comps",
  "post_v1_share_email",
  "post_v1_rag_answer_agent",
  "get_v1_news",
  "post_v1_documents_search",
];

async function allTools(client: Client): Promise<{ tools: Tool[]; pages: number }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { tools, pages };
}

const textOf = (r: unknown) =>
  (((r as { content: unknown }).content as { type: string; text?: string }[])[0]?.text ?? "") as string;

let m: McpFixture;
let key: string;
let client: Client;
beforeAll(async () => {
  m = await startMcpFixture({ CAIRN_MCP_PAGE_SIZE: "5" });
  key = await m.fx.svc.apiKey("mcp-analyst@example.com", "enterprise");
  client = await m.connect(key);
}, 120_000);
afterAll(() => m.close());

describe("tools/list", () => {
  test("the eligible operations of /openapi.json, paged, each named by method and path", async () => {
    const doc = (await (await m.fx.svc.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, Op>>;
    };
    const expected = eligibleOperations(doc);
    const { tools, pages } = await allTools(client);
    expect(pages).toBe(Math.ceil(expected.size / 5));
    expect(tools.map((t) => t.name).sort()).toEqual([...expected.keys()].sort());
    for (const name of SPEC_TOOLS) expect(expected.has(name)).toBe(true);
    for (const t of tools) {
      const op = expected.get(t.name) as Op & { key: string };
      expect(t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(t.description).toBe(`${op.summary} (REST: ${op.key})`);
      expect(t.inputSchema.type).toBe("object");
      for (const p of op.key.match(/\{[^}]+\}/g) ?? []) expect(t.inputSchema.required).toContain(p.slice(1, -1));
      expect(JSON.stringify(t.inputSchema)).not.toContain("$ref");
    }
    const ratios = tools.find((t) => t.name === "get_v1_financials_cik_ratios") as Tool;
    expect(Object.keys(ratios.inputSchema.properties ?? {}).sort()).toEqual(
      ["cik", "fiscal_year", "limit", "period", "result_offset"].sort(),
    );
    expect(ratios.outputSchema?.required).toEqual(["items", "page"]);
    // A JSON body's properties are arguments beside the path and query ones, required kept.
    const comps = tools.find((t) => t.name === "post_v1_export_comps") as Tool;
    expect(comps.inputSchema.required?.length).toBeGreaterThan(0);
    // Admin, JWT, internal and WebSocket routes are not tools.
    for (const absent of ["get_v1_admin_tenants", "get_v1_user_me", "get_v1_news_stream", "post_v1_documents_upload"])
      expect(tools.some((t) => t.name === absent)).toBe(false);
  });

  test("a cursor that is not one of ours is the protocol's invalid-params error", async () => {
    await expect(client.listTools({ cursor: "bm9wZQ" })).rejects.toThrow(/Invalid cursor/);
  });
});

describe("every 4.4 tool answers what REST answers", () => {
  const same = async (name: string, args: Record<string, unknown>, path: string) => {
    const rest = await m.rest(key, path);
    expect(rest.status).toBe(200);
    const body = (await rest.json()) as unknown;
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBeFalsy();
    const structured = Array.isArray(body)
      ? (result.structuredContent as { items: unknown }).items
      : result.structuredContent;
    expect(structured).toEqual(body as Record<string, unknown>);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent as Record<string, unknown>);
    return body;
  };

  test("ratios and income statements", async () => {
    const ratios = await same(
      "get_v1_financials_cik_ratios",
      { cik: FIXTURE_CIK, limit: 3 },
      `/v1/financials/${FIXTURE_CIK}/ratios?limit=3`,
    );
    expect((ratios as unknown[]).length).toBe(3);
    const income = await same(
      "get_v1_financials_cik_income",
      { cik: FIXTURE_CIK, period: "FY", fiscal_year: 2022 },
      `/v1/financials/${FIXTURE_CIK}/income?period=FY&fiscal_year=2022`,
    );
    expect((income as { revenue: number }[])[0]?.revenue).toBe(470);
  });

  test("company facts, revenue segments and news history (named as tools beside 4.4)", async () => {
    await same("get_v1_companies_cik", { cik: FIXTURE_CIK }, `/v1/companies/${FIXTURE_CIK}`);
    await same(
      "get_v1_financials_cik_revenue-segments",
      { cik: FIXTURE_CIK },
      `/v1/financials/${FIXTURE_CIK}/revenue-segments`,
    );
    const news = await same("get_v1_news", { limit: 5 }, "/v1/news?limit=5");
    expect(JSON.stringify(news)).toContain(m.articleId);
  });

  test("news article by id", async () => {
    const article = await same("get_v1_news_article_id", { article_id: m.articleId }, `/v1/news/${m.articleId}`);
    expect((article as { article_id: string }).article_id).toBe(m.articleId);
  });

  test.skipIf(!sharedData("", "MCP tools on the real corpus"))(
    "transcripts, topics and presentations on the real corpus",
    async () => {
      const page = await same("get_v1_transcripts", { ticker: "HD", limit: 5 }, "/v1/transcripts?ticker=HD&limit=5");
      expect((page as { total: number }).total).toBeGreaterThanOrEqual(1);
      const topics = await same(
        "get_v1_companies_cik_topics_extracted",
        { cik: "354950", date_from: "2020-01-01" },
        "/v1/companies/354950/topics/extracted?date_from=2020-01-01",
      );
      expect((topics as { topics: unknown[] }).topics.length).toBeGreaterThan(0);
      const emerging = (await same("get_v1_topics_emerging", {}, "/v1/topics/emerging")) as {
        emerging_topics: { emerging_topic_id: number }[];
      };
      const id = emerging.emerging_topics[0]?.emerging_topic_id as number;
      expect(id).toBeGreaterThan(0);
      await same(
        "get_v1_topics_emerging_emerging_topic_id_companies",
        { emerging_topic_id: id, limit: 5 },
        `/v1/topics/emerging/${id}/companies?limit=5`,
      );
      const pres = await same(
        "get_v1_presentations_accession_number",
        { accession_number: "0001213900-25-032135" },
        "/v1/presentations/0001213900-25-032135",
      );
      expect((pres as { markdown: string }).markdown.length).toBeGreaterThan(500);
    },
  );

  test("an XLSX export is an embedded resource holding the REST bytes", async () => {
    const rest = await m.rest(key, `/v1/export/financials/${FIXTURE_CIK}`);
    expect(rest.status).toBe(200);
    const bytes = new Uint8Array(await rest.arrayBuffer());
    const result = await client.callTool({ name: "get_v1_export_financials_cik", arguments: { cik: FIXTURE_CIK } });
    expect(result.isError).toBeFalsy();
    const res = (result.content as { type: string; resource?: { mimeType: string; blob: string } }[]).find(
      (c) => c.type === "resource",
    );
    expect(res?.resource?.mimeType).toBe(rest.headers.get("content-type")?.split(";")[0] as string);
    const blob = Buffer.from(res?.resource?.blob ?? "", "base64");
    expect(blob.subarray(0, 2).toString()).toBe("PK");
    // Two exports of one workbook differ only in when they were made (the "Generated at (UTC)"
    // cell, docProps/core.xml and the zip entries' dates): with timestamps masked, every part
    // but the document properties holds the same text.
    const stamp = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
    const parts = async (zipBytes: Uint8Array) => {
      const zip = await JSZip.loadAsync(zipBytes);
      const names = Object.keys(zip.files)
        .filter((n) => !zip.files[n]?.dir && !n.startsWith("docProps/"))
        .sort();
      return Promise.all(
        names.map(async (n) => [n, (await zip.file(n)?.async("string"))?.replace(stamp, "<time>")] as const),
      );
    };
    const [fromTool, fromRest] = await Promise.all([parts(blob), parts(bytes)]);
    expect(fromTool.map(([n]) => n)).toContain("xl/workbook.xml");
    expect(fromTool).toEqual(fromRest);
  });
});

describe("refusals", () => {
  test("a 422 is a tool error carrying the spec's validation body, as REST answers it", async () => {
    const rest = await m.rest(key, `/v1/financials/${FIXTURE_CIK}/ratios?limit=41`);
    expect(rest.status).toBe(422);
    const result = await client.callTool({
      name: "get_v1_financials_cik_ratios",
      arguments: { cik: FIXTURE_CIK, limit: 41 },
    });
    expect(result.isError).toBe(true);
    expect(result._meta?.["cairn/http_status"]).toBe(422);
    expect(JSON.parse(textOf(result))).toEqual((await rest.json()) as Record<string, unknown>);
    const missing = await client.callTool({ name: "get_v1_financials_cik_income", arguments: {} });
    expect(missing.isError).toBe(true);
    const body = JSON.parse(textOf(missing)) as { detail: { loc: string[]; type: string }[] };
    expect(body.detail[0]).toMatchObject({ loc: ["path", "cik"], type: "missing" });
  });

  test("an unknown tool is the protocol's error, not a crash", async () => {
    await expect(client.callTool({ name: "get_v1_admin_tenants", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  test("a missing or unknown API key is HTTP 401 before any session starts", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const keys: Record<string, string>[] = [{}, { "x-api-key": "ck_not_a_key_of_ours" }];
    for (const headers of keys) {
      const res = await fetch(m.mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(init),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("mcp-session-id")).toBeNull();
      expect(res.headers.get("www-authenticate")).toContain("X-API-Key");
      expect(typeof ((await res.json()) as { detail: unknown }).detail).toBe("string");
    }
    await expect(m.connect("ck_not_a_key_of_ours")).rejects.toThrow();
  });
});

describe("same path as REST", () => {
  test("tool calls count as usage; initialize and tools/list do not", async () => {
    const email = `mcp-usage-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const own = await m.connect(await m.fx.svc.apiKey(email, "pro"));
    await own.listTools();
    for (let i = 0; i < 3; i++)
      await own.callTool({ name: "get_v1_financials_cik_ratios", arguments: { cik: FIXTURE_CIK } });
    const token = await m.fx.svc.token(email, "pro");
    const me = (await (
      await m.fx.svc.request("/v1/user/me", { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      current_usage: { today: number };
    };
    // Three tool calls, and this /v1/user/me itself.
    expect(me.current_usage.today).toBe(4);
  });

  test("the free tier's 5 per minute holds across tool calls: the 6th is a 429 tool error", async () => {
    const free = await m.connect(
      await m.fx.svc.apiKey(`mcp-free-${crypto.randomUUID().slice(0, 8)}@example.com`, "free"),
    );
    for (let i = 0; i < 5; i++) {
      const ok = await free.callTool({ name: "get_v1_financials_cik_income", arguments: { cik: FIXTURE_CIK } });
      expect(ok.isError).toBeFalsy();
    }
    const refused = await free.callTool({ name: "get_v1_financials_cik_income", arguments: { cik: FIXTURE_CIK } });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.["cairn/http_status"]).toBe(429);
    expect((JSON.parse(textOf(refused)) as { detail: string }).detail).toMatch(/Rate limit exceeded/);
  });
});
