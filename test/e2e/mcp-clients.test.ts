/**
 * The official MCP tools against the running service: the conformance suite in server mode
 * (with test/mcp/conformance-baseline.yml, whose every entry has a reason) and the Inspector's
 * CLI (tools/list and one tools/call). Both run offline from node_modules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "bun";
import { type McpFixture, startMcpFixture } from "../mcp/fixture.ts";
import { FIXTURE_CIK } from "../sec-fixture.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const BASELINE = join(ROOT, "test", "mcp", "conformance-baseline.yml");
// The suite's dist needs fs.globSync (Node 22+): Bun runs it, whatever node is installed.
const CONFORMANCE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const INSPECTOR = join(ROOT, "node_modules", ".bin", "mcp-inspector-cli");
// Inspector CLI 1.0.3 looks for "../package.json" relative to the working directory, not to
// itself: run it from its own build folder so that lookup finds its package.
const INSPECTOR_CWD = join(ROOT, "node_modules", "@modelcontextprotocol", "inspector-cli", "build");

async function run(cmd: string[], cwd = ROOT): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out, err };
}

let m: McpFixture;
let key: string;
let proxy: Server<undefined>;
let outDir: string;
beforeAll(async () => {
  m = await startMcpFixture();
  key = await m.fx.svc.apiKey("mcp-clients@example.com", "enterprise");
  outDir = mkdtempSync(join(tmpdir(), "cairn-conformance-"));
  // The conformance runner's client takes a URL and nothing else; an agent's MCP client is
  // configured with the key as a header. This loopback hop adds it, and changes nothing else.
  const target = new URL(m.mcpUrl);
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      headers.set("x-api-key", key);
      return fetch(`${target.origin}${url.pathname}${url.search}`, { method: req.method, headers, body: req.body });
    },
  });
}, 120_000);
afterAll(async () => {
  proxy?.stop(true);
  await m?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("conformance suite, server mode", () => {
  test("every baseline entry states its reason", () => {
    const entries = readFileSync(BASELINE, "utf8")
      .split("\n")
      .filter((l) => /^\s+- /.test(l));
    expect(entries.length).toBeGreaterThan(0);
    for (const line of entries) expect(line).toMatch(/^\s+- [a-z0-9-]+ # \S.{8,}$/);
  });

  test("passes but for the baseline's expected failures (a newly passing one fails too)", async () => {
    const url = `http://127.0.0.1:${proxy.port}${new URL(m.mcpUrl).pathname}`;
    const r = await run([
      process.execPath,
      CONFORMANCE,
      "server",
      "--url",
      url,
      "--expected-failures",
      BASELINE,
      "-o",
      outDir,
    ]);
    if (r.code !== 0) process.stderr.write(`${r.out}\n${r.err}\n`);
    expect(r.code).toBe(0);
    // The protocol's core scenarios ran and passed: they are not excused by the baseline.
    for (const s of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"])
      expect(r.out).toMatch(new RegExp(`✓ ${s}: \\d+ passed, 0 failed`));
  }, 120_000);
});

describe("Inspector CLI", () => {
  const inspector = (args: string[]) =>
    run([INSPECTOR, "--cli", m.mcpUrl, "--transport", "http", "--header", `X-API-Key: ${key}`, ...args], INSPECTOR_CWD);

  test("tools/list shows the generated tools", async () => {
    const r = await inspector(["--method", "tools/list"]);
    expect(r.code).toBe(0);
    const names = ((JSON.parse(r.out) as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
    expect(names).toContain("get_v1_financials_cik_ratios");
    expect(names).toContain("get_v1_transcripts");
  }, 60_000);

  test("tools/call returns the REST data", async () => {
    const r = await inspector([
      "--method",
      "tools/call",
      "--tool-name",
      "get_v1_financials_cik_ratios",
      "--tool-arg",
      `cik=${FIXTURE_CIK}`,
      "--tool-arg",
      "limit=2",
    ]);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.out) as { structuredContent: { items: unknown[] } };
    const rest = (await (await m.rest(key, `/v1/financials/${FIXTURE_CIK}/ratios?limit=2`)).json()) as unknown[];
    expect(result.structuredContent.items).toEqual(rest);
  }, 60_000);

  test("without the key the Inspector is refused", async () => {
    const r = await run([INSPECTOR, "--cli", m.mcpUrl, "--transport", "http", "--method", "tools/list"], INSPECTOR_CWD);
    expect(r.code).not.toBe(0);
    expect(`${r.out}${r.err}`).toContain("Missing API key");
  }, 60_000);
});
