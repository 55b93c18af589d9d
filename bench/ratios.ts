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
import { closedLoop, type LoadResult, waitForUrl } from "./load.ts";
import { emit, emitPair, QUICK, round, summarize } from "./runner.ts";

const CONCURRENCY = 64;
const DURATION_MS = QUICK ? 2_000 : 10_000;
const TARGET_RATIO = 0.3;
const TARGET_P99_MS = 20;
const root = join(import.meta.dir, "..");
const bun = process.execPath;

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const p = s.port ?? 0;
  await s.stop(true);
  return p;
}

function spawn(args: string[], env: Record<string, string>) {
  return Bun.spawn([bun, ...args], { cwd: root, env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
}

function cli(args: string[], env: Record<string, string>): string {
  const r = Bun.spawnSync([bun, "cli.ts", ...args], { cwd: root, env: { ...process.env, ...env } });
  if (r.exitCode !== 0) throw new Error(`cli ${args[0]} failed: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

async function run(
  name: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ r: LoadResult; p99: number }> {
  await closedLoop(url, { headers }, { concurrency: CONCURRENCY, durationMs: 1_000 }); // warm-up
  const r = await closedLoop(url, { headers }, { concurrency: CONCURRENCY, durationMs: DURATION_MS });
  const s = summarize(r.latenciesMs);
  for (const [metric, value] of [
    ["p50", s.p50],
    ["p99", s.p99],
  ] as const) {
    emit({ bench: name, metric: `latency_${metric}`, value: round(value, 3), unit: "ms", peer: null, ratio: null });
  }
  if (r.errors > 0) emit({ bench: name, metric: "errors", value: r.errors, unit: "requests", peer: null, ratio: null });
  return { r, p99: s.p99 };
}

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

const [helloPort, cairnPort] = [await freePort(), await freePort()];
const hello = spawn(["-e", `Bun.serve({port:${helloPort},fetch:()=>new Response("hello")})`], {});
const cairn = spawn(["main.ts"], { ...env, PORT: String(cairnPort), HOST: "127.0.0.1" });
try {
  await waitForUrl(`http://127.0.0.1:${helloPort}/`);
  await waitForUrl(`http://127.0.0.1:${cairnPort}/healthz`);
  const url = `http://127.0.0.1:${cairnPort}/v1/financials/${cik}/ratios`;
  const probe = await fetch(url, { headers: { "x-api-key": key } });
  const rows = (await probe.json()) as unknown[];
  if (probe.status !== 200 || rows.length === 0) throw new Error(`ratios probe answered ${probe.status}`);
  const ceiling = await run("hello-world/bun", `http://127.0.0.1:${helloPort}/`, {});
  const subject = await run("ratios/cairn", url, { "x-api-key": key });
  emitPair(
    { bench: "ratios/cairn", value: subject.r.rps },
    { bench: "hello-world/bun", value: ceiling.r.rps },
    "throughput",
    "req/s",
  );
  emit({
    bench: "ratios/cairn",
    metric: "target_ratio",
    value: TARGET_RATIO,
    unit: "ratio",
    peer: "hello-world/bun",
    ratio: round(subject.r.rps / ceiling.r.rps / TARGET_RATIO, 3),
  });
  emit({
    bench: "ratios/cairn",
    metric: "target_p99",
    value: TARGET_P99_MS,
    unit: "ms",
    peer: null,
    ratio: round(subject.p99 / TARGET_P99_MS, 3),
  });
} finally {
  hello.kill();
  cairn.kill("SIGTERM");
  await Promise.all([hello.exited, cairn.exited]);
  rmSync(dataDir, { recursive: true, force: true });
}
