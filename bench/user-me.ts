/**
 * GET /v1/user/me at concurrency 64 (JWT auth, tenant routing, rate limiting, usage
 * counting, request id and access logging all on the path), against the ceiling: a bare
 * Bun.serve answering the same JSON body with the same headers (captured from one answer
 * of the service), measured in the same run on the same machine by the same client.
 * The two are loaded in alternating rounds (bench/ceiling.ts loadAlternating), so load from
 * other work on a shared machine falls on both alike. Prints req/s, p50 and p99 of both
 * and the ratio, and each server's CPU time per request (steadier than req/s on a shared
 * machine). Target: at least 60% of the ceiling's req/s.
 *
 *   node_modules/.bin/bun bench/user-me.ts        (BENCH_QUICK=1 for a short smoke run)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { captureResponse, cli, loadAlternating, withCeilingAndService } from "./ceiling.ts";
import { emit, emitPair, round } from "./runner.ts";

const TARGET_RATIO = 0.6;
const CEILING = "same-json/bun";
const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-"));
const env = { CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "silent", CAIRN_RATE_LIMIT_SCALE: "1000000" };
try {
  const token = cli(["token", "--email", "bench@cairn.local", "--tier", "enterprise"], env);
  const auth = { authorization: `Bearer ${token}` };
  await withCeilingAndService(
    env,
    async (urls) => {
      const [ceiling, subject] = await loadAlternating(
        { name: CEILING, url: `${urls.hello}/`, headers: {}, pid: urls.pids.hello },
        { name: "user-me/cairn", url: `${urls.cairn}/v1/user/me`, headers: auth, pid: urls.pids.cairn },
      );
      emitPair(
        { bench: "user-me/cairn", value: subject.rps },
        { bench: CEILING, value: ceiling.rps },
        "throughput",
        "req/s",
      );
      emit({
        bench: "user-me/cairn",
        metric: "target_ratio",
        value: TARGET_RATIO,
        unit: "ratio",
        peer: CEILING,
        ratio: round(subject.rps / ceiling.rps / TARGET_RATIO, 3),
      });
    },
    (cairn) => captureResponse(`${cairn}/v1/user/me`, auth),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
