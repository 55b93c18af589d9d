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
import { closedLoop, type LoadResult, waitForUrl } from "./load.ts";
import { emit, emitPair, QUICK, round, summarize } from "./runner.ts";

const CONCURRENCY = 64;
const DURATION_MS = QUICK ? 2_000 : 10_000;
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

async function run(name: string, url: string, headers: Record<string, string>): Promise<LoadResult> {
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
  return r;
}

const dataDir = mkdtempSync(join(tmpdir(), "cairn-bench-"));
const env = { CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: "silent", CAIRN_RATE_LIMIT_SCALE: "1000000" };
const [helloPort, cairnPort] = [await freePort(), await freePort()];
const hello = spawn(["-e", `Bun.serve({port:${helloPort},fetch:()=>new Response("hello")})`], {});
const cairn = spawn(["main.ts"], { ...env, PORT: String(cairnPort), HOST: "127.0.0.1" });
try {
  await waitForUrl(`http://127.0.0.1:${helloPort}/`);
  await waitForUrl(`http://127.0.0.1:${cairnPort}/healthz`);
  const token = Bun.spawnSync([bun, "cli.ts", "token", "--email", "bench@cairn.local", "--tier", "enterprise"], {
    cwd: root,
    env: { ...process.env, ...env },
  })
    .stdout.toString()
    .trim();
  const ceiling = await run("hello-world/bun", `http://127.0.0.1:${helloPort}/`, {});
  const subject = await run("user-me/cairn", `http://127.0.0.1:${cairnPort}/v1/user/me`, {
    authorization: `Bearer ${token}`,
  });
  emitPair(
    { bench: "user-me/cairn", value: subject.rps },
    { bench: "hello-world/bun", value: ceiling.rps },
    "throughput",
    "req/s",
  );
  emit({
    bench: "user-me/cairn",
    metric: "target_ratio",
    value: 0.4,
    unit: "ratio",
    peer: "hello-world/bun",
    ratio: round(subject.rps / ceiling.rps / 0.4, 3),
  });
} finally {
  hello.kill();
  cairn.kill("SIGTERM");
  await Promise.all([hello.exited, cairn.exited]);
  rmSync(dataDir, { recursive: true, force: true });
}
