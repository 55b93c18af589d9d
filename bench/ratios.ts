/**
 * GET /v1/financials/{cik}/ratios at concurrency 64 (API-key auth, tenant routing, rate
 * limiting, usage counting and the materialised-ratio read on the path), against the
 * ceiling: a bare Bun hello-world server measured in the same run on the same machine.
 * Targets: at least 30% of the ceiling's req/s, and p99 under 20 ms.
 *
 * The shared SEC data (../shared/data/sec) is ingested into the bench's temp data dir
 * first; without it a small synthetic filer is ingested instead (noted on stderr).
 *
 *   node_modules/.bin/bun bench/ratios.ts        (BENCH_QUICK=1 for a short smoke run)
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeSecFixture } from "../test/sec-fixture.ts";
import { cli, load, withCeilingAndService } from "./ceiling.ts";
import { emit, emitPair, round } from "./runner.ts";

const TARGET_RATIO = 0.3;
const TARGET_P99_MS = 20;
const root = join(import.meta.dir, "..");

const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-"));
const env = { CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "silent", CAIRN_RATE_LIMIT_SCALE: "1000000" };
const shared = join(root, "..", "shared", "data", "sec");
let secDir = shared;
let cik = "320193";
if (!existsSync(shared)) {
  process.stderr.write(`[bench] ${shared} is missing: benchmarking a synthetic filer\n`);
  secDir = writeSecFixture(join(dataDir, "fixture", "sec"));
  cik = "999999";
}
cli(["ingest-sec", "--dir", secDir], env);
const key = cli(["apikey", "--email", "bench@cairn.local", "--tier", "enterprise"], env);

try {
  await withCeilingAndService(env, async (urls) => {
    const url = `${urls.cairn}/v1/financials/${cik}/ratios`;
    const probe = await fetch(url, { headers: { "x-api-key": key } });
    const rows = (await probe.json()) as unknown[];
    if (probe.status !== 200 || rows.length === 0) throw new Error(`ratios probe answered ${probe.status}`);
    const ceiling = await load("hello-world/bun", `${urls.hello}/`, {});
    const subject = await load("ratios/cairn", url, { "x-api-key": key });
    emitPair(
      { bench: "ratios/cairn", value: subject.rps },
      { bench: "hello-world/bun", value: ceiling.rps },
      "throughput",
      "req/s",
    );
    emit({
      bench: "ratios/cairn",
      metric: "target_ratio",
      value: TARGET_RATIO,
      unit: "ratio",
      peer: "hello-world/bun",
      ratio: round(subject.rps / ceiling.rps / TARGET_RATIO, 3),
    });
    emit({
      bench: "ratios/cairn",
      metric: "target_p99",
      value: TARGET_P99_MS,
      unit: "ms",
      peer: null,
      ratio: round(subject.p99 / TARGET_P99_MS, 3),
    });
  });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
