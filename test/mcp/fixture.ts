/**
 * A served service for the MCP suites: the demo data (the SEC fixture always; the shared
 * transcripts, 8-K presentations and topics when ../shared/data is there; one news article),
 * a provisioned document index, and an SDK client over real Streamable HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SqlNewsStore } from "../../adapters/news/index.ts";
import { ingestFilingsDirectory } from "../../pipelines/financials/filings/index.ts";
import { ingestSecDirectory } from "../../pipelines/financials/sec/index.ts";
import { buildTopics } from "../../pipelines/financials/topics/index.ts";
import { ingestTranscriptsDirectory } from "../../pipelines/financials/transcripts/index.ts";
import { type DocsFixture, startDocsFixture } from "../fixtures/documents-app.ts";
import { makeArticle } from "../news-fixtures.ts";
import { writeSecFixture } from "../sec-fixture.ts";
import { type Served, serve } from "../serve.ts";
import { sharedData } from "../shared-data.ts";

export interface McpFixture {
  fx: DocsFixture;
  served: Served;
  /** `${served.url}${path}` where the MCP route is mounted. */
  mcpUrl: string;
  /** The shared real-data folder, when present. */
  data: string | undefined;
  articleId: string;
  /** An SDK client connected with this API key (initialize done). */
  connect(apiKey: string): Promise<Client>;
  /** The REST answer to the same call, for comparison. */
  rest(apiKey: string, path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startMcpFixture(env: Record<string, string> = {}, mcpPath = "/mcp"): Promise<McpFixture> {
  const fx = await startDocsFixture(env);
  const dir = mkdtempSync(join(tmpdir(), "cairn-mcp-"));
  await ingestSecDirectory(writeSecFixture(join(dir, "sec"), { restated: true }), fx.svc.service.financials, {
    marketDir: null,
  });
  const data = sharedData("", "MCP tools on the real corpus");
  if (data) {
    const research = fx.svc.service.research;
    await ingestTranscriptsDirectory(research, join(data, "transcripts"));
    await ingestFilingsDirectory(research, join(data, "sec", "8k"));
    await buildTopics(research, { dataDir: data });
  }
  const article = makeArticle();
  await new SqlNewsStore(fx.svc.service.store.sql).insert({ ...article, canonical_url: article.url });
  const served = serve(fx.svc.service);
  const mcpUrl = `${served.url}${mcpPath}`;
  const clients: Client[] = [];
  return {
    fx,
    served,
    mcpUrl,
    data,
    articleId: article.article_id,
    connect: async (apiKey) => {
      const client = new Client({ name: "cairn-test", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { "x-api-key": apiKey } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    rest: (apiKey, path, init = {}) =>
      fx.svc.request(path, { ...init, headers: { ...(init.headers as Record<string, string>), "x-api-key": apiKey } }),
    close: async () => {
      for (const c of clients) await c.close().catch(() => undefined);
      await served.stop();
      await fx.svc.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
