/**
 * An MCP tool call (POST {docs_url}/mcp, JSON-RPC tools/call of get_v1_financials_cik_ratios)
 * against its ceiling, the same REST call it makes (GET /v1/financials/{cik}/ratios), on the
 * same service process, at concurrency 1 and 32. The tool call is the REST call plus the
 * protocol: the key check before the session, a fresh stateless server and transport, the
 * JSON-RPC parse, the app.request hop and the result's structured and text renderings.
 *
 * The request is sent raw (no SDK client), as a stateless server takes tools/call without a
 * prior initialize; the client side of the SDK is not what is measured.
 *
 *   node_modules/.bin/bun bench/mcp.ts        (BENCH_QUICK=1 for a short smoke run)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeSecFixture } from "../test/sec-fixture.ts";
import { cli, withCeilingAndService } from "./ceiling.ts";
import { closedLoop } from "./load.ts";
import { emit, emitPair, QUICK, round, summarize } from "./runner.ts";

const DURATION_MS = QUICK ? 2_000 : 10_000;
const CONCURRENCIES = [1, 32];
const CIK = "999999";

const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-"));
const env = { CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "silent", CAIRN_RATE_LIMIT_SCALE: "1000000" };
try {
  cli(["ingest-sec", "--dir", writeSecFixture(join(dataDir, "fixture", "sec"))], env);
  const key = cli(["apikey", "--email", "bench@cairn.local", "--tier", "enterprise"], env);
  await withCeilingAndService(env, async (urls) => {
    const rest = { url: `${urls.cairn}/v1/financials/${CIK}/ratios?limit=8`, init: { headers: { "x-api-key": key } } };
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_v1_financials_cik_ratios", arguments: { cik: CIK, limit: 8 } },
    };
    const mcp = {
      url: `${urls.cairn}/mcp`,
      init: {
        method: "POST",
        headers: {
          "x-api-key": key,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify(call),
      },
    };
    // Both answer, and answer the same rows, before anything is timed.
    const restRows = (await (await fetch(rest.url, rest.init)).json()) as unknown[];
    const probe = (await (await fetch(mcp.url, mcp.init)).json()) as {
      result?: { isError?: boolean; structuredContent?: { items: unknown[] } };
    };
    if (probe.result?.isError || JSON.stringify(probe.result?.structuredContent?.items) !== JSON.stringify(restRows)) {
      throw new Error(`the tool call does not answer the REST rows: ${JSON.stringify(probe).slice(0, 300)}`);
    }

    for (const concurrency of CONCURRENCIES) {
      const measure = async (name: string, target: { url: string; init: RequestInit }) => {
        await closedLoop(target.url, target.init, { concurrency, durationMs: 1_000 });
        const r = await closedLoop(target.url, target.init, { concurrency, durationMs: DURATION_MS });
        const s = summarize(r.latenciesMs);
        if (r.errors > 0)
          emit({ bench: name, metric: "errors", value: r.errors, unit: "requests", peer: null, ratio: null });
        return { name, rps: r.rps, p50: s.p50, p99: s.p99 };
      };
      const ceiling = await measure(`rest-ratios/c${concurrency}`, rest);
      const subject = await measure(`mcp-tool-call/c${concurrency}`, mcp);
      emitPair(
        { bench: subject.name, value: subject.rps },
        { bench: ceiling.name, value: ceiling.rps },
        "throughput",
        "req/s",
      );
      for (const p of ["p50", "p99"] as const) {
        emitPair(
          { bench: subject.name, value: round(subject[p], 3) },
          { bench: ceiling.name, value: round(ceiling[p], 3) },
          `latency_${p}`,
          "ms",
        );
      }
    }
  });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
