/**
 * The HTTP scenarios' shared frame: a bare Bun server (the ceiling) and the Cairn service,
 * each in its own process on this machine, loaded one after the other by the same
 * closed-loop client, with results printed as JSON lines. The ceiling answers "hello" by
 * default; a scenario can make it answer exactly what the service answered (the same JSON
 * body and headers), so the ratio measures the service's work and nothing else.
 */
import { readFileSync } from "node:fs";
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

/** What the ceiling answers: a status, headers and a body, the same on every request. */
export interface CeilingResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Records one answer of the service as the ceiling's. Headers Bun sets itself (Date,
 * Content-Length) are left to the ceiling's Bun to set the same way.
 */
export async function captureResponse(url: string, headers: Record<string, string>): Promise<CeilingResponse> {
  const res = await fetch(url, { headers });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`probe of ${url} answered ${res.status}: ${body.slice(0, 200)}`);
  const kept: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== "date" && k !== "content-length") kept[k] = v;
  });
  return { status: res.status, headers: kept, body };
}

/**
 * The ceiling's source: a bare Bun.serve that builds one Response per request from a
 * constant body and header object (what the simplest hand-written server would do).
 */
function ceilingScript(port: number, answer: CeilingResponse | null): string {
  if (!answer) return `Bun.serve({port:${port},fetch:()=>new Response("hello")})`;
  const init = JSON.stringify({ status: answer.status, headers: answer.headers });
  return `const b=${JSON.stringify(answer.body)};const i=${init};Bun.serve({port:${port},fetch:()=>new Response(b,i)})`;
}

/** One side of an alternating comparison: its bench name, URL and request headers. */
export interface LoadTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The server's process id: its CPU time per request is reported too (Linux /proc). */
  pid?: number;
}

/** utime + stime of a process in clock ticks (1/100 s), or null where /proc is absent. */
function cpuTicks(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * Loads `a` and `b` in alternating rounds (a, b, a, b, ...) after warming both, and emits
 * each one's p50/p99 over all its rounds. On a machine shared with other work the load
 * drifts over seconds; alternating short rounds gives both sides the same drift, where one
 * long run each would hand one of them a quiet machine and the other a busy one.
 * req/s is all requests over all round time, per side. With a target's pid, the server's
 * CPU time per request is emitted as well: unlike req/s it hardly moves with the load
 * others put on a shared machine, so it shows what a change did to the server's own work.
 */
export async function loadAlternating(a: LoadTarget, b: LoadTarget, rounds = QUICK ? 3 : 6) {
  const roundMs = QUICK ? 700 : 2_000;
  const sides = [a, b].map((t) => ({ t, requests: 0, seconds: 0, errors: 0, ticks: 0, latencies: [] as number[] }));
  for (const s of sides) {
    await closedLoop(s.t.url, { headers: s.t.headers }, { concurrency: CONCURRENCY, durationMs: 1_000 });
  }
  for (let i = 0; i < rounds; i++) {
    for (const s of sides) {
      const t0 = cpuTicks(s.t.pid);
      const r = await closedLoop(s.t.url, { headers: s.t.headers }, { concurrency: CONCURRENCY, durationMs: roundMs });
      const t1 = cpuTicks(s.t.pid);
      if (t0 !== null && t1 !== null) s.ticks += t1 - t0;
      s.requests += r.requests;
      s.seconds += r.seconds;
      s.errors += r.errors;
      for (const l of r.latenciesMs) s.latencies.push(l);
    }
  }
  return sides.map((s) => {
    const sum = summarize(s.latencies);
    for (const [metric, value] of [
      ["p50", sum.p50],
      ["p99", sum.p99],
    ] as const) {
      emit({
        bench: s.t.name,
        metric: `latency_${metric}`,
        value: round(value, 3),
        unit: "ms",
        peer: null,
        ratio: null,
      });
    }
    if (s.errors > 0)
      emit({ bench: s.t.name, metric: "errors", value: s.errors, unit: "requests", peer: null, ratio: null });
    if (s.t.pid !== undefined && s.ticks > 0) {
      const us = (s.ticks * 10_000) / s.requests;
      emit({
        bench: s.t.name,
        metric: "server_cpu_per_request",
        value: round(us, 2),
        unit: "us",
        peer: null,
        ratio: null,
      });
    }
    return { rps: s.requests / s.seconds, p99: sum.p99 };
  }) as [{ rps: number; p99: number }, { rps: number; p99: number }];
}

/**
 * Starts the service (env: its data dir etc.) and the ceiling, runs `fn`, stops both.
 * With `ceiling`, the ceiling starts after the service is up and answers what
 * `ceiling(cairnUrl)` returns (captureResponse of the scenario's request).
 */
export async function withCeilingAndService(
  env: Record<string, string>,
  fn: (urls: { hello: string; cairn: string; pids: { hello?: number; cairn?: number } }) => Promise<void>,
  ceiling?: (cairnUrl: string) => Promise<CeilingResponse>,
): Promise<void> {
  const [helloPort, cairnPort] = [await freePort(), await freePort()];
  const cairn = spawnBun(["main.ts"], { ...env, PORT: String(cairnPort), HOST: "127.0.0.1" });
  let hello: ReturnType<typeof spawnBun> | null = null;
  try {
    const urls = {
      hello: `http://127.0.0.1:${helloPort}`,
      cairn: `http://127.0.0.1:${cairnPort}`,
      pids: { cairn: cairn.pid } as { hello?: number; cairn?: number },
    };
    await waitForUrl(`${urls.cairn}/healthz`);
    const answer = ceiling ? await ceiling(urls.cairn) : null;
    hello = spawnBun(["-e", ceilingScript(helloPort, answer)], {});
    urls.pids.hello = hello.pid;
    await waitForUrl(`${urls.hello}/`);
    await fn(urls);
  } finally {
    hello?.kill();
    cairn.kill("SIGTERM");
    await Promise.all([hello?.exited, cairn.exited]);
  }
}
