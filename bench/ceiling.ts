/**
 * The HTTP scenarios' shared frame: a bare Bun hello-world server (the ceiling) and the
 * Cairn service, each in its own process on this machine, loaded one after the other by
 * the same closed-loop client, with results printed as JSON lines.
 */
import { join } from "node:path";
import { closedLoop, freePort, type LoadResult, waitForUrl } from "./load.ts";
import { emit, QUICK, round, summarize } from "./runner.ts";

export const CONCURRENCY = 64;
const DURATION_MS = QUICK ? 2_000 : 10_000;
const root = join(import.meta.dir, "..");
const bun = process.execPath;

function spawnBun(args: string[], env: Record<string, string>) {
  return Bun.spawn([bun, ...args], { cwd: root, env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
}

/** Runs `bun cli/index.ts ...` against the bench's data dir and returns its stdout. */
export function cli(args: string[], env: Record<string, string>): string {
  const r = Bun.spawnSync([bun, "cli/index.ts", ...args], { cwd: root, env: { ...process.env, ...env } });
  if (r.exitCode !== 0) throw new Error(`cli ${args[0]} failed: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

/** Warms up, then loads `url` at CONCURRENCY; emits p50/p99 (and errors) for `name`. */
export async function load(name: string, url: string, headers: Record<string, string>) {
  await closedLoop(url, { headers }, { concurrency: CONCURRENCY, durationMs: 1_000 });
  const r: LoadResult = await closedLoop(url, { headers }, { concurrency: CONCURRENCY, durationMs: DURATION_MS });
  const s = summarize(r.latenciesMs);
  for (const [metric, value] of [
    ["p50", s.p50],
    ["p99", s.p99],
  ] as const) {
    emit({ bench: name, metric: `latency_${metric}`, value: round(value, 3), unit: "ms", peer: null, ratio: null });
  }
  if (r.errors > 0) emit({ bench: name, metric: "errors", value: r.errors, unit: "requests", peer: null, ratio: null });
  return { rps: r.rps, p99: s.p99 };
}

/** Starts the ceiling and the service (env: its data dir etc.), runs `fn`, stops both. */
export async function withCeilingAndService(
  env: Record<string, string>,
  fn: (urls: { hello: string; cairn: string }) => Promise<void>,
): Promise<void> {
  const [helloPort, cairnPort] = [await freePort(), await freePort()];
  const hello = spawnBun(["-e", `Bun.serve({port:${helloPort},fetch:()=>new Response("hello")})`], {});
  const cairn = spawnBun(["main.ts"], { ...env, PORT: String(cairnPort), HOST: "127.0.0.1" });
  try {
    const urls = { hello: `http://127.0.0.1:${helloPort}`, cairn: `http://127.0.0.1:${cairnPort}` };
    await waitForUrl(`${urls.hello}/`);
    await waitForUrl(`${urls.cairn}/healthz`);
    await fn(urls);
  } finally {
    hello.kill();
    cairn.kill("SIGTERM");
    await Promise.all([hello.exited, cairn.exited]);
  }
}
