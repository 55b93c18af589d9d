/**
 * GET /v1/user/me at concurrency 64 (JWT auth, tenant routing, rate limiting and usage
 * counting all on the path), against the ceiling: a bare Bun hello-world server measured
 * in the same run on the same machine. Target: at least 40% of the ceiling's req/s.
 *
 *   node_modules/.bin/bun bench/user-me.ts        (BENCH_QUICK=1 for a short smoke run)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, load, withCeilingAndService } from "./ceiling.ts";
import { emit, emitPair, round } from "./runner.ts";

const TARGET_RATIO = 0.4;
const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-"));
const env = { CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "silent", CAIRN_RATE_LIMIT_SCALE: "1000000" };
try {
  const token = cli(["token", "--email", "bench@cairn.local", "--tier", "enterprise"], env);
  await withCeilingAndService(env, async (urls) => {
    const ceiling = await load("hello-world/bun", `${urls.hello}/`, {});
    const subject = await load("user-me/cairn", `${urls.cairn}/v1/user/me`, { authorization: `Bearer ${token}` });
    emitPair(
      { bench: "user-me/cairn", value: subject.rps },
      { bench: "hello-world/bun", value: ceiling.rps },
      "throughput",
      "req/s",
    );
    emit({
      bench: "user-me/cairn",
      metric: "target_ratio",
      value: TARGET_RATIO,
      unit: "ratio",
      peer: "hello-world/bun",
      ratio: round(subject.rps / ceiling.rps / TARGET_RATIO, 3),
    });
  });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
