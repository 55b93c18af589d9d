/**
 * Document access control through the MCP tools (spec 4.6, 4.10): a deal-private document is
 * found, fetched and cited for the identity it names, and reachable through no tool for
 * another user of the same tenant, exactly as over REST.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { installedModelsDir } from "../embedding-models.ts";
import type { Caller } from "../fixtures/documents-app.ts";
import { textFile } from "../fixtures/documents-app.ts";
import { type McpFixture, startMcpFixture } from "../mcp/fixture.ts";

const models = installedModelsDir(["bge-small-en-v1.5", "e5-small-v2"], "MCP document tools");

describe.skipIf(!models)("document tools apply the document's access rules", () => {
  const token = `zqm${crypto.randomUUID().slice(0, 8)}`;
  let m: McpFixture;
  let alice: Caller;
  let bob: Caller;
  let asAlice: Client;
  let asBob: Client;
  let docId: string;

  beforeAll(async () => {
    m = await startMcpFixture();
    alice = await m.fx.caller(`alice-${crypto.randomUUID()}@example.com`, ["analyst"]);
    bob = await m.fx.caller(`bob-${crypto.randomUUID()}@example.com`, ["analyst"]);
    const res = await m.fx.upload(alice, textFile("deal.txt", `${token} private memorandum about the deal terms.`), {
      visibility: "deal_private",
      allowed_identity_ids: String(alice.user.id),
    });
    expect(res.status).toBe(200);
    docId = ((await res.json()) as { doc_id: string }).doc_id;
    asAlice = await m.connect(alice.key);
    asBob = await m.connect(bob.key);
  }, 120_000);
  afterAll(() => m.close());

  const hits = async (who: Client) => {
    const r = await who.callTool({
      name: "post_v1_documents_search",
      arguments: { query: token, k: 20, mode: "bm25" },
    });
    expect(r.isError).toBeFalsy();
    return (r.structuredContent as { results: { doc_id: string }[] }).results.map((h) => h.doc_id);
  };

  test("search finds it for the named identity only, as REST does", async () => {
    expect(await hits(asAlice)).toContain(docId);
    expect(await hits(asBob)).not.toContain(docId);
    const rest = await m.fx.search(bob, { query: token, k: 20, mode: "bm25" });
    expect(((await rest.json()) as { results: { doc_id: string }[] }).results.map((h) => h.doc_id)).not.toContain(
      docId,
    );
  });

  test("the record is a 404 tool error for anyone else", async () => {
    const own = await asAlice.callTool({ name: "get_v1_documents_doc_id", arguments: { doc_id: docId } });
    expect(own.isError).toBeFalsy();
    expect((own.structuredContent as { doc_id: string }).doc_id).toBe(docId);
    const other = await asBob.callTool({ name: "get_v1_documents_doc_id", arguments: { doc_id: docId } });
    expect(other.isError).toBe(true);
    expect(other._meta?.["cairn/http_status"]).toBe(404);
    expect(JSON.stringify(other.content)).not.toContain("private memorandum");
  });

  test("an answer restricted to that document cites nothing of it for anyone else", async () => {
    const ask = (who: Client) =>
      who.callTool({
        name: "post_v1_rag_answer_agent",
        arguments: { question: `What are the ${token} deal terms?`, doc_id: docId },
      });
    const own = await ask(asAlice);
    expect(own.isError).toBeFalsy();
    expect((own.structuredContent as { citations: { doc_id: string }[] }).citations.map((c) => c.doc_id)).toContain(
      docId,
    );
    const other = await ask(asBob);
    // The question echoes the token; the document's own words must not come back.
    const text = JSON.stringify(other.structuredContent ?? other.content);
    expect(text).not.toContain("private memorandum");
    if (!other.isError) {
      expect((other.structuredContent as { citations: unknown[] }).citations).toEqual([]);
    }
  });
});
