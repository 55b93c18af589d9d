/**
 * The news stream at scale (issue item 6): BENCH_NEWS_CLIENTS (default 10,000) WebSocket
 * subscribers with mixed filters, 1,000 articles/s published, against the ceiling — a
 * bare Bun WebSocket server sending the same frames to recipients computed before the
 * clock starts — measured in the same run on the same machine.
 *
 *   node_modules/.bin/bun bench/news-stream.ts      (BENCH_QUICK=1: 1,000 clients, short phases)
 *
 * Each contender runs in its own process; the clients run in another (this box has two
 * cores: one for the server, one for the clients). Per contender:
 *   connect N clients, each sending its filter   -> connect time, server memory per connection
 *   warm-up, then phase "healthy" (all clients read) and phase "stalled" (one extra client
 *   taking every article is frozen with SIGSTOP)  -> delivered msg/s, publish-to-receive
 *   p50/p99 per phase: the stalled phase must look like the healthy one
 *   phase "capacity": BENCH_NEWS_BURST_RATE (default 4,000) articles/s, more than either
 *   server can send                               -> delivered msg/s at saturation
 *   thaw the frozen client                        -> it is still connected and was told
 *                                                    how many articles it lost (`dropped`)
 * Targets (issue 20): p99 < 100 ms; delivered msg/s >= 90% of the ceiling's at the first step
 * the ceiling no longer keeps up with (the `at-ceiling` rows; at 1,000 articles/s both keep up).
 * `server_cpu_per_frame` is each server's CPU per frame owed: on a shared machine it says what
 * the ceiling would be with a whole core, when a busy box gives a contender less.
 * A stalled client is the extra one; the others are unaffected if the stalled phase's
 * latency and delivery match the healthy phase's. Event-loop lag is reported per phase:
 * on a shared machine, lag in the ceiling too means the box was busy, not the service.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { ClientEvent, PhaseReport, ServerCommand, ServerEvent, ServerMode } from "./news-stream-shared.ts";
import { emit, emitPair, QUICK, round, type Summary } from "./runner.ts";

/**
 * The scale is 100,000 subscribers; each costs the server one file descriptor and the
 * clients process another, so the default is what this machine's open-file limit allows (the
 * hard limit here is 20,000 and cannot be raised without privileges), capped at 100,000.
 */
const CLIENTS = Number(process.env.BENCH_NEWS_CLIENTS ?? (QUICK ? 1_000 : Math.min(100_000, openFileLimit() - 500)));
/**
 * Offered loads after the healthy phase, raised step by step until the ceiling stops keeping
 * up (its delivery falls behind what was offered): the issue asks for up to 5,000 articles/s.
 */
const STEPS = (process.env.BENCH_NEWS_STEPS ?? (QUICK ? "2000" : "2000,5000"))
  .split(",")
  .map(Number)
  .filter((n) => Number.isFinite(n) && n > 0);
const RATE = Number(process.env.BENCH_NEWS_RATE ?? 1_000);
const PHASE_S = QUICK ? 3 : 8;
/** The capacity phase offers far more than either server can deliver, to find its limit. */
const BURST_RATE = Number(process.env.BENCH_NEWS_BURST_RATE ?? 4_000);
const BURST_S = QUICK ? 2 : 3;
const SEED = 20_240_611;
const root = join(import.meta.dir, "..");

function openFileLimit(): number {
  try {
    const m = /Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"));
    if (m) return Number(m[1]);
  } catch {
    // not Linux: fall through
  }
  return 10_500;
}
const bun = process.execPath;

/** A child driven over IPC: events queue up until someone waits for them. */
class Child<E extends { type: string }> {
  readonly proc: Subprocess<"ignore", "inherit", "inherit">;
  private readonly events: E[] = [];
  private waiters: (() => void)[] = [];
  constructor(args: string[]) {
    this.proc = Bun.spawn([bun, ...args], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, CAIRN_LOG_LEVEL: "silent" },
      serialization: "json",
      ipc: (message) => {
        this.events.push(message as E);
        for (const w of this.waiters.splice(0)) w();
      },
    });
  }
  async next<T extends E["type"]>(type: T, timeoutMs = 120_000): Promise<Extract<E, { type: T }>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const i = this.events.findIndex((e) => e.type === type);
      if (i >= 0) return this.events.splice(i, 1)[0] as Extract<E, { type: T }>;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${type}`);
      if (this.proc.exitCode !== null) throw new Error(`child exited (${this.proc.exitCode}) before sending ${type}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 1_000);
      });
    }
  }
  send(message: object): void {
    this.proc.send(message);
  }
  /** Asks for a clean exit first (profiles get written), then kills. */
  async stop(): Promise<void> {
    try {
      this.proc.send({ cmd: "exit" });
    } catch {
      // already gone
    }
    const timer = setTimeout(() => this.proc.kill(), 3_000);
    await this.proc.exited;
    clearTimeout(timer);
  }
}

/** The frozen reader: test/news-stall-client.ts, reading stdout lines. */
async function startStalled(url: string) {
  const proc = Bun.spawn([bun, join(root, "test/news-stall-client.ts"), url, "{}"], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const line = async (timeoutMs: number): Promise<string> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        const out = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return out;
      }
      const chunk = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - performance.now()))]);
      if (!chunk || chunk.done) throw new Error("the stalled client said nothing");
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  if ((await line(30_000)) !== "ready") throw new Error("the stalled client did not get its filter");
  return { proc, line };
}

interface Result {
  connectMs: number;
  /** CPU of the clients process over the publishing phases, in cores. */
  clientCores: number;
  /** Server RSS growth per connected client, bytes (after a full GC). */
  memPerConn: number;
  /** The JavaScript heap's share of it. */
  heapPerConn: number;
  phases: Map<
    string,
    {
      report: PhaseReport;
      seconds: number;
      startedAt: number;
      expected: number;
      articles: number;
      cpu: number;
      lag: Summary;
    }
  >;
  stall: { maxDropped: number; subscribers: number; maxBuffered: number; summary: string };
}

/** Waits until the clients stop receiving (at most 30 s). */
async function settle(clients: Child<ClientEvent>): Promise<void> {
  for (let seen = -1, tries = 0; tries < 60; tries++) {
    await Bun.sleep(500);
    clients.send({ cmd: "report" });
    const total = (await clients.next("report")).phases.reduce((n, p) => n + p.received, 0);
    if (total === seen) return;
    seen = total;
  }
}

/** Frames delivered per second, from the first publish to the last receipt (a backlog counts). */
function deliveredRate(p: { report: PhaseReport; seconds: number; startedAt: number }): number {
  return p.report.received / Math.max(p.seconds, (p.report.lastAt - p.startedAt) / 1000, 0.001);
}

async function runContender(mode: ServerMode): Promise<Result> {
  // BENCH_PROFILE=<dir>: the server writes a markdown CPU profile there (bun --cpu-prof-md).
  const prof = process.env.BENCH_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const server = new Child<ServerEvent>([...prof, "bench/news-stream-server.ts", mode, String(SEED)]);
  let clients: Child<ClientEvent> | undefined;
  let stalled: Awaited<ReturnType<typeof startStalled>> | undefined;
  try {
    const ready = await server.next("ready");
    const url = `ws://127.0.0.1:${ready.port}/v1/news/stream`;
    clients = new Child<ClientEvent>([
      "bench/news-stream-clients.ts",
      url,
      ready.apiKey,
      String(CLIENTS),
      String(SEED),
    ]);
    const connected = await clients.next("connected", 600_000);
    if (connected.failed > 0) process.stderr.write(`[${mode}] ${connected.failed} clients failed to connect\n`);
    server.send({ cmd: "stats" } satisfies ServerCommand);
    const afterConnect = await server.next("stats");
    stalled = await startStalled(`${url}?apikey=${encodeURIComponent(ready.apiKey)}`);

    const phases: Result["phases"] = new Map();
    const phasesStarted = performance.now();
    const names = ["warmup", "healthy", ...STEPS.map((r) => `load_${r}`), "stalled", "capacity"];
    for (const [phase, name] of names.entries()) {
      if (name === "stalled") stalled.proc.kill("SIGSTOP");
      server.send({
        cmd: "publish",
        phase,
        rate: name === "capacity" ? BURST_RATE : name.startsWith("load_") ? Number(name.slice(5)) : RATE,
        seconds: name === "warmup" ? 2 : name === "capacity" ? BURST_S : PHASE_S,
      } satisfies ServerCommand);
      const done = await server.next("published", 600_000);
      // A step past the ceiling leaves a backlog: let it drain before the next phase's clock.
      if (name.startsWith("load_")) await settle(clients);
      phases.set(name, {
        report: { phase, received: 0, lastAt: 0, latency: { n: 0, mean: 0, min: 0, p50: 0, p90: 0, p99: 0, max: 0 } },
        seconds: done.seconds,
        startedAt: done.startedAt,
        expected: done.expected,
        articles: done.articles,
        cpu: done.cpu,
        lag: done.lag,
      });
    }
    // Wait until deliveries stop arriving (the capacity phase leaves a backlog).
    let report: Extract<ClientEvent, { type: "report" }> | undefined;
    for (let seen = -1, tries = 0; tries < 60; tries++) {
      await Bun.sleep(1_000);
      clients.send({ cmd: "report" });
      report = await clients.next("report");
      const total = report.phases.reduce((n, p) => n + p.received, 0);
      if (total === seen) break;
      seen = total;
    }
    if (!report) throw new Error("no report from the clients");
    const clientCores = (report.cpu - connected.cpu) / ((performance.now() - phasesStarted) / 1000);
    for (const [phase, name] of names.entries()) {
      const p = phases.get(name);
      const r = report.phases.find((x) => x.phase === phase);
      if (p && r) p.report = r;
    }
    server.send({ cmd: "stats" } satisfies ServerCommand);
    const stats = await server.next("stats");
    stalled.proc.kill("SIGCONT");
    server.send({ cmd: "end" } satisfies ServerCommand);
    let summary = "";
    try {
      summary = await stalled.line(60_000);
    } catch (error) {
      summary = `no summary: ${String(error)}`;
    }
    return {
      connectMs: connected.ms,
      clientCores,
      memPerConn: (afterConnect.rss - ready.rss) / CLIENTS,
      heapPerConn: (afterConnect.heap - ready.heap) / CLIENTS,
      phases,
      stall: { maxDropped: stats.maxDropped, subscribers: stats.subscribers, maxBuffered: stats.maxBuffered, summary },
    };
  } finally {
    stalled?.proc.kill("SIGCONT");
    stalled?.proc.kill();
    await stalled?.proc.exited;
    await clients?.stop();
    await server.stop();
  }
}

const ceiling = await runContender("bare");
const subject = await runContender("cairn");
const B = "news-stream/bare-bun";
const C = "news-stream/cairn";
const line = (bench: string, metric: string, value: number, unit: string) =>
  emit({ bench, metric, value: round(value, 3), unit, peer: null, ratio: null });

line(C, "clients", CLIENTS, "connections");
line(C, "publish_rate", RATE, "articles/s");
for (const [bench, r] of [
  [B, ceiling],
  [C, subject],
] as const) {
  line(bench, "connect_all", r.connectMs, "ms");
  line(bench, "clients_process_cpu", r.clientCores, "cores");
  for (const name of ["healthy", ...STEPS.map((x) => `load_${x}`), "stalled", "capacity"]) {
    const p = r.phases.get(name);
    if (!p) continue;
    line(bench, `${name}_fanout_per_article`, p.expected / p.articles, "recipients");
    // The frozen extra client is owed one frame per article; the clients process counts the rest.
    line(bench, `${name}_completeness`, p.report.received / Math.max(1, p.expected - p.articles), "ratio");
    line(bench, `${name}_server_cpu`, p.cpu / p.seconds, "cores");
    // Server CPU per frame owed: on a shared machine a contender may get less than a core,
    // and this cost is what decides its ceiling once it has one.
    line(bench, `${name}_server_cpu_per_frame`, (p.cpu / Math.max(1, p.expected)) * 1e6, "us");
    // Under deliberate overload the publisher itself holds the loop: latency means nothing there.
    if (name === "capacity") continue;
    line(bench, `${name}_latency_p50`, p.report.latency.p50, "ms");
    line(bench, `${name}_latency_p99`, p.report.latency.p99, "ms");
    line(bench, `${name}_event_loop_lag_p99`, p.lag.p99, "ms");
    line(bench, `${name}_event_loop_lag_max`, p.lag.max, "ms");
  }
}
for (const name of ["healthy", ...STEPS.map((x) => `load_${x}`), "stalled"]) {
  const s = subject.phases.get(name);
  const c = ceiling.phases.get(name);
  if (!s || !c) continue;
  emitPair({ bench: C, value: deliveredRate(s) }, { bench: B, value: deliveredRate(c) }, `${name}_delivered`, "msg/s");
}
{
  // Capacity: frames delivered per second from the first publish to the last receipt,
  // with far more offered than either server can send.
  const rate = (p: Result["phases"] extends Map<string, infer V> ? V : never) =>
    p.report.received / Math.max(0.001, (p.report.lastAt - p.startedAt) / 1000);
  const s = subject.phases.get("capacity");
  const c = ceiling.phases.get("capacity");
  if (s && c) emitPair({ bench: C, value: rate(s) }, { bench: B, value: rate(c) }, "capacity_delivered", "msg/s");
  line(C, "capacity_offered", (s?.expected ?? 0) / Math.max(0.001, s?.seconds ?? 0), "msg/s");
}
emitPair(
  { bench: C, value: subject.memPerConn },
  { bench: B, value: ceiling.memPerConn },
  "memory_per_connection",
  "bytes",
);
emitPair(
  { bench: C, value: subject.heapPerConn },
  { bench: B, value: ceiling.heapPerConn },
  "js_heap_per_connection",
  "bytes",
);
{
  // The ceiling is found at the first offered load the bare server no longer delivers as fast
  // as it is offered (below 90% of the offered msg/s: it falls behind and a backlog builds); ours
  // is compared with it there. None found: the load never reached the ceiling on this machine,
  // and the top step is reported.
  const steps = STEPS.map((x) => `load_${x}`);
  const keepsUp = (r: Result, name: string) => {
    const p = r.phases.get(name);
    return p ? deliveredRate(p) >= 0.9 * ((p.expected - p.articles) / p.seconds) : false;
  };
  const found = steps.find((name) => !keepsUp(ceiling, name));
  const at = found ?? steps.at(-1);
  const s = at ? subject.phases.get(at) : undefined;
  const c = at ? ceiling.phases.get(at) : undefined;
  if (at && s && c) {
    line(C, "ceiling_found", found ? 1 : 0, "bool");
    line(C, "ceiling_step", Number(at.slice(5)), "articles/s");
    emitPair(
      { bench: `${C}/at-ceiling`, value: deliveredRate(s) },
      { bench: `${B}/at-ceiling`, value: deliveredRate(c) },
      "delivered",
      "msg/s",
    );
    emitPair(
      { bench: `${C}/at-ceiling`, value: (s.cpu / Math.max(1, s.expected)) * 1e6 },
      { bench: `${B}/at-ceiling`, value: (c.cpu / Math.max(1, c.expected)) * 1e6 },
      "server_cpu_per_frame",
      "us",
    );
  }
}
const healthy = subject.phases.get("healthy")?.report.latency.p99 ?? Number.NaN;
const stalledP99 = subject.phases.get("stalled")?.report.latency.p99 ?? Number.NaN;
emit({
  bench: C,
  metric: "p99_target",
  value: 100,
  unit: "ms",
  peer: null,
  ratio: round(Math.max(healthy, stalledP99) / 100, 3),
});
emit({
  bench: `${C}/stalled`,
  metric: "p99_vs_healthy",
  value: round(stalledP99, 3),
  unit: "ms",
  peer: `${C}/healthy`,
  ratio: round(stalledP99 / healthy, 3),
});
line(`${C}/stalled-client`, "dropped", subject.stall.maxDropped, "articles");
line(`${C}/stalled-client`, "still_connected", subject.stall.subscribers === CLIENTS + 1 ? 1 : 0, "bool");
line(`${B}/stalled-client`, "server_buffered", ceiling.stall.maxBuffered, "bytes");
process.stderr.write(`stalled client after thaw (cairn): ${subject.stall.summary}\n`);
process.stderr.write(`stalled client after thaw (bare): ${ceiling.stall.summary}\n`);
