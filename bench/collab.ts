/**
 * Collaboration rooms against their peer, @hocuspocus/server 4.7 (STYLE habit 14): each
 * server runs alone in its own process on this machine (Cairn's rooms on Bun, Hocuspocus on
 * Node, its home runtime), loaded one after the other by the same client process speaking the
 * Hocuspocus protocol (both servers speak it), with the same settings (in-memory store,
 * 2 s / 10 s debounce, tokens accepted). Rounds alternate between the two; each metric is the
 * median of its rounds.
 *
 * Scenarios, each printed as JSON lines with the ratio Cairn / Hocuspocus:
 * - one room, 50 clients, each typing `BENCH_RATE` (20) characters a second (open loop):
 *   updates delivered per second to the other 49 clients, p50/p99 latency from a keystroke
 *   to its delivery, server CPU per 100k deliveries and deliveries per server CPU-second;
 * - the same room saturated: each client keeps 4 unacknowledged updates in flight (the
 *   server acknowledges each one), so throughput is whatever the machine sustains;
 * - 50 rooms × 20 clients saturated (issue 20's scenario; BENCH_SAT_ROOMS, BENCH_SAT_PER_ROOM),
 *   one observer per room;
 * - 1,000 rooms × 5 clients (BENCH_ROOMS), 1 character a second each;
 * - memory per idle room: server RSS and JS heap after a full GC, with 1,000 rooms each
 *   holding ~1 KB of text and one connected idle client, minus the empty server.
 *
 * The load generator is lean (its clients write into their own Y.Doc; 5 clients of the big
 * room and 1 of each small room decode and time what they receive, and deliveries are
 * scaled to all receivers), but it shares the 2 CPUs with the server, so saturated runs are bounded by the machine as much as by the
 * server: "capacity" (deliveries per server CPU-second) is the server's own share.
 *
 *   bun bench/collab.ts            (BENCH_QUICK=1: 3 s, 1 round, 200 rooms)
 */
import { join } from "node:path";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";
import { createLogger } from "../http/logger.ts";
import { freePort } from "./load.ts";
import { emit, emitPair, QUICK, round, summarize } from "./runner.ts";

/** Per-round diagnostics with BENCH_DEBUG=1 (JSON log lines beside the results). */
const debugLog = process.env.BENCH_DEBUG ? createLogger("debug", { bench: "collab" }) : null;

const root = join(import.meta.dir, "..");
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? (QUICK ? 3_000 : 10_000));
const RATE = Number(process.env.BENCH_RATE ?? 20);
const WINDOW = 4;
/** Clients of the 50-client room that decode and time what they receive (the rest only read). */
const OBSERVERS = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const ROOMS = Number(process.env.BENCH_ROOMS ?? (QUICK ? 200 : 1_000));
const IDLE_ROOMS = Number(process.env.BENCH_IDLE_ROOMS ?? (QUICK ? 200 : 1_000));
/** Issue 20's editor scenario: rooms × clients, every client saturating. */
const SAT_ROOMS = Number(process.env.BENCH_SAT_ROOMS ?? 50);
const SAT_PER_ROOM = Number(process.env.BENCH_SAT_PER_ROOM ?? 20);

type Kind = "cairn" | "hocuspocus";

interface ServerProc {
  kind: Kind;
  url: string;
  memUrl: string;
  pid: number;
  stop(): Promise<void>;
}

async function startServer(kind: Kind): Promise<ServerProc> {
  const port = await freePort();
  const memPort = await freePort();
  const cmd =
    kind === "cairn"
      ? [
          process.execPath,
          ...(process.env.BENCH_CAIRN_FLAGS?.split(" ").filter(Boolean) ?? []),
          "bench/collab-server.ts",
          String(port),
        ]
      : ["node", "--expose-gc", "bench/collab-hocuspocus.mjs", String(port), String(memPort)];
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "pipe", stderr: "inherit", env: { ...process.env } });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${kind} server exited before it was ready`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const memUrl = kind === "cairn" ? `http://127.0.0.1:${port}/mem` : `http://127.0.0.1:${memPort}/mem`;
  return {
    kind,
    url: kind === "cairn" ? `ws://127.0.0.1:${port}/v1/editor/collab` : `ws://127.0.0.1:${port}`,
    memUrl,
    pid: proc.pid,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** utime + stime of a process, in seconds (Linux /proc). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Bun.file(`/proc/${pid}/stat`).text();
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function memory(s: ServerProc): Promise<{ rss: number; heapUsed: number; rooms: number; conns: number }> {
  return (await (await fetch(s.memUrl)).json()) as { rss: number; heapUsed: number; rooms: number; conns: number };
}

/** Send times of every writer's updates, by Yjs clock (one character = one clock). */
const sendTimes = new Map<number, number[]>();

interface Stats {
  deliveries: number;
  latencies: number[];
  /** Only deliveries of updates sent at or after this time count. */
  since: number;
}

function frame(prefix: Uint8Array, write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeUint8Array(e, prefix);
  write(e);
  return encoding.toUint8Array(e);
}

/** A lean Hocuspocus-protocol client: writes into its own Y.Doc, reads only update metadata. */
class BenchClient {
  readonly doc = new Y.Doc();
  private ws!: WebSocket;
  private readonly prefix: Uint8Array;
  private readonly lastSeen = new Map<number, number>();
  private synced!: PromiseWithResolvers<void>;
  inFlight = 0;
  onAck: (() => void) | null = null;

  constructor(
    private readonly url: string,
    private readonly room: string,
    private readonly stats: Stats,
    /** Only observers decode what they receive (the load generator must stay cheap). */
    private readonly observe = true,
  ) {
    const e = encoding.createEncoder();
    encoding.writeVarString(e, room);
    this.prefix = encoding.toUint8Array(e);
    sendTimes.set(this.doc.clientID, []);
    this.doc.on("update", (update: Uint8Array) => {
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint(e, 2);
          encoding.writeVarUint8Array(e, update);
        }),
      );
    });
  }

  connect(): Promise<void> {
    this.synced = Promise.withResolvers<void>();
    this.ws = new WebSocket(this.url);
    this.ws.binaryType = "arraybuffer";
    this.ws.onopen = () => {
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 2);
          encoding.writeVarUint(e, 0);
          encoding.writeVarString(e, "bench-token");
          encoding.writeVarString(e, "bench");
        }),
      );
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint8Array(e, Y.encodeStateVector(this.doc));
        }),
      );
    };
    this.ws.onmessage = (ev) => this.receive(new Uint8Array(ev.data as ArrayBuffer));
    this.ws.onerror = () => this.synced.reject(new Error(`socket error (${this.room})`));
    return this.synced.promise;
  }

  /** One insert at the end of the text (typing forward), timed by its clock. */
  write(ch = "x"): void {
    const times = sendTimes.get(this.doc.clientID) as number[];
    const clock = Y.getState(this.doc.store, this.doc.clientID);
    times[clock] = performance.now();
    this.inFlight++;
    const text = this.doc.getText("t");
    text.insert(text.length, ch);
  }

  close(): void {
    this.ws.close();
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  private receive(data: Uint8Array): void {
    if (data.length === 1) return; // connection-level ping
    const dec = decoding.createDecoder(data);
    const roomLength = decoding.readVarUint(dec);
    dec.pos += roomLength; // the room name: one socket, one room, so skipped undecoded
    const type = decoding.readVarUint(dec);
    if (type === 8) {
      this.inFlight--;
      this.onAck?.();
      return;
    }
    if (type !== 0) return;
    const sub = decoding.readVarUint(dec);
    if (sub === 1) {
      this.synced.resolve();
      return;
    }
    if (sub === 0) {
      // The server's step 1: answer with what it lacks of ours.
      const sv = decoding.readVarUint8Array(dec);
      this.ws.send(
        frame(this.prefix, (e) => {
          encoding.writeVarUint(e, 0);
          encoding.writeVarUint(e, 1);
          encoding.writeVarUint8Array(e, Y.encodeStateAsUpdate(this.doc, sv));
        }),
      );
      return;
    }
    if (!this.observe) return;
    const update = decoding.readVarUint8Array(dec);
    const now = performance.now();
    const meta = Y.parseUpdateMeta(update);
    for (const [client, to] of meta.to) {
      if (client === this.doc.clientID) continue;
      const times = sendTimes.get(client);
      if (!times) continue;
      const from = Math.max(this.lastSeen.get(client) ?? 0, meta.from.get(client) ?? 0);
      for (let c = from; c < to; c++) {
        const t = times[c];
        if (t === undefined || t < this.stats.since) continue;
        this.stats.deliveries++;
        this.stats.latencies.push(now - t);
      }
      if (to > (this.lastSeen.get(client) ?? 0)) this.lastSeen.set(client, to);
    }
  }
}

async function connectAll(clients: BenchClient[], batch = 200): Promise<void> {
  for (let i = 0; i < clients.length; i += batch) {
    await Promise.all(clients.slice(i, i + batch).map((c) => c.connect()));
  }
}

interface RunResult {
  /** Share of the clients still connected at the end of the measured window. */
  open: number;
  deliveriesPerSec: number;
  p50: number;
  p99: number;
  cpuPer100k: number;
  /** Cores the load generator (this process) used over the measured window. */
  clientCores: number;
  /** Cores the server used over the measured window. */
  serverCores: number;
}

/** Open loop: every client writes `rate` times a second for the duration. */
async function openLoop(
  server: ServerProc,
  rooms: number,
  perRoom: number,
  rate: number,
  observers: number,
): Promise<RunResult> {
  const stats: Stats = { deliveries: 0, latencies: [], since: Number.POSITIVE_INFINITY };
  const clients: BenchClient[] = [];
  for (let r = 0; r < rooms; r++) {
    const room = crypto.randomUUID();
    for (let i = 0; i < perRoom; i++) clients.push(new BenchClient(server.url, room, stats, i < observers));
  }
  await connectAll(clients);
  const period = 1000 / rate;
  // Spread the writers' phases so the offered load is smooth.
  const timers = clients.map((c, i) =>
    setTimeout(
      () => {
        timers[i] = setInterval(() => c.write(), period) as unknown as ReturnType<typeof setTimeout>;
      },
      (i / clients.length) * period,
    ),
  );
  await Bun.sleep(1_000); // warm-up
  const cpu0 = await cpuSeconds(server.pid);
  const me0 = process.cpuUsage();
  stats.since = performance.now();
  await Bun.sleep(DURATION_MS);
  const measuredUntil = performance.now();
  const me1 = process.cpuUsage(me0);
  const serverCpu = (await cpuSeconds(server.pid)) - cpu0;
  for (const t of timers) clearInterval(t);
  const stillOpen = clients.filter((c) => c.isOpen).length;
  await Bun.sleep(1_000); // let what was sent arrive
  const cpu1 = await cpuSeconds(server.pid);
  for (const c of clients) c.close();
  // Count only updates sent inside the window (their deliveries may land a little later).
  const seconds = (measuredUntil - stats.since) / 1000;
  const s = summarize(stats.latencies);
  debugLog?.debug(
    {
      server: server.kind,
      deliveries: stats.deliveries,
      samples: stats.latencies.length,
      seconds,
      open: stillOpen,
      server_cpu: cpu1 - cpu0,
    },
    "fixed-load round",
  );
  // Every client receives what the observers receive: scale their count up.
  const deliveries = (stats.deliveries * perRoom) / observers;
  return {
    open: stillOpen / clients.length,
    deliveriesPerSec: deliveries / seconds,
    p50: s.p50,
    p99: s.p99,
    cpuPer100k: ((cpu1 - cpu0) / Math.max(1, deliveries)) * 100_000,
    clientCores: (me1.user + me1.system) / 1e6 / seconds,
    serverCores: serverCpu / seconds,
  };
}

/** Saturation: each client of `rooms` rooms keeps WINDOW acknowledged-on-receipt updates in flight. */
async function saturate(server: ServerProc, rooms: number, perRoom: number, observers: number): Promise<RunResult> {
  const stats: Stats = { deliveries: 0, latencies: [], since: Number.POSITIVE_INFINITY };
  const clients: BenchClient[] = [];
  for (let r = 0; r < rooms; r++) {
    const room = crypto.randomUUID();
    for (let i = 0; i < perRoom; i++) clients.push(new BenchClient(server.url, room, stats, i < observers));
  }
  await connectAll(clients);
  let running = true;
  for (const c of clients) {
    c.onAck = () => {
      while (running && c.inFlight < WINDOW) c.write();
    };
    for (let i = 0; i < WINDOW; i++) c.write();
  }
  await Bun.sleep(1_000);
  const cpu0 = await cpuSeconds(server.pid);
  const me0 = process.cpuUsage();
  stats.since = performance.now();
  await Bun.sleep(DURATION_MS);
  const until = performance.now();
  const stillOpen = clients.filter((c) => c.isOpen).length;
  const me1 = process.cpuUsage(me0);
  const serverCpu = (await cpuSeconds(server.pid)) - cpu0;
  debugLog?.debug(
    { server: server.kind, client_cpu_s: (me1.user + me1.system) / 1e6, server_cpu_s: serverCpu },
    "saturation round",
  );
  running = false;
  await Bun.sleep(1_000);
  const cpu1 = await cpuSeconds(server.pid);
  for (const c of clients) c.close();
  const s = summarize(stats.latencies);
  const deliveries = (stats.deliveries * perRoom) / observers;
  const seconds = (until - stats.since) / 1000;
  return {
    open: stillOpen / clients.length,
    deliveriesPerSec: deliveries / seconds,
    p50: s.p50,
    p99: s.p99,
    cpuPer100k: ((cpu1 - cpu0) / Math.max(1, deliveries)) * 100_000,
    clientCores: (me1.user + me1.system) / 1e6 / seconds,
    serverCores: serverCpu / seconds,
  };
}

/** Memory of `rooms` idle rooms (one client each, ~1 KB of text), per room. */
async function idleRooms(server: ServerProc, rooms: number): Promise<{ rss: number; heap: number }> {
  const before = await memory(server);
  const stats: Stats = { deliveries: 0, latencies: [], since: Number.POSITIVE_INFINITY };
  const clients = Array.from({ length: rooms }, () => new BenchClient(server.url, crypto.randomUUID(), stats));
  await connectAll(clients);
  for (const c of clients) for (let i = 0; i < 32; i++) c.write("lorem ipsum dolor sit amet, cons");
  await Bun.sleep(3_000); // past the debounce: stored, idle
  const after = await memory(server);
  if (after.rooms < rooms) throw new Error(`${server.kind}: ${after.rooms} rooms loaded, expected ${rooms}`);
  for (const c of clients) c.close();
  return { rss: (after.rss - before.rss) / rooms, heap: (after.heapUsed - before.heapUsed) / rooms };
}

async function withServer<T>(kind: Kind, fn: (s: ServerProc) => Promise<T>): Promise<T> {
  const s = await startServer(kind);
  try {
    return await fn(s);
  } finally {
    await s.stop();
    sendTimes.clear();
  }
}

function report(name: string, c: RunResult, h: RunResult): void {
  for (const [kind, r] of [
    ["cairn", c],
    ["hocuspocus", h],
  ] as const) {
    emit({
      bench: `${name}/${kind}`,
      metric: "connections_open",
      value: round(r.open, 4),
      unit: "fraction",
      peer: null,
      ratio: null,
    });
  }
  emitPair(
    { bench: `${name}/cairn`, value: c.deliveriesPerSec },
    { bench: `${name}/hocuspocus`, value: h.deliveriesPerSec },
    "delivered",
    "updates/s",
  );
  for (const [metric, ck, hk] of [
    ["latency_p50", c.p50, h.p50],
    ["latency_p99", c.p99, h.p99],
  ] as const) {
    emitPair(
      { bench: `${name}/cairn`, value: round(ck, 3) },
      { bench: `${name}/hocuspocus`, value: round(hk, 3) },
      metric,
      "ms",
    );
  }
  // The client shares the machine, so a saturated run is bounded by it as much as by the
  // server: deliveries per second of server CPU is the capacity the server itself shows.
  emitPair(
    { bench: `${name}/cairn`, value: 100_000 / c.cpuPer100k },
    { bench: `${name}/hocuspocus`, value: 100_000 / h.cpuPer100k },
    "capacity",
    "deliveries per server CPU-second",
  );
  emitPair(
    { bench: `${name}/cairn`, value: c.cpuPer100k },
    { bench: `${name}/hocuspocus`, value: h.cpuPer100k },
    "server_cpu",
    "s/100k deliveries",
  );
  // Which side bounded a saturated run: a server short of a core while the load generator
  // holds one was fed too slowly to show its capacity in "delivered".
  for (const [kind, r] of [
    ["cairn", c],
    ["hocuspocus", h],
  ] as const) {
    for (const [metric, value] of [
      ["server_cores", r.serverCores],
      ["client_cores", r.clientCores],
    ] as const) {
      emit({ bench: `${name}/${kind}`, metric, value: round(value, 3), unit: "cores", peer: null, ratio: null });
    }
  }
}

/**
 * Alternating rounds (Cairn, Hocuspocus, Cairn, ...) so drift in the machine's load hits
 * both alike; each metric is the median of its rounds.
 */
async function compare<T extends object>(run: (s: ServerProc) => Promise<T>): Promise<{ cairn: T; hocuspocus: T }> {
  const rounds: Record<Kind, T[]> = { cairn: [], hocuspocus: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of ["cairn", "hocuspocus"] as const) rounds[kind].push(await withServer(kind, run));
  }
  const median = (rs: T[]): T => {
    const out: Record<string, number> = {};
    for (const key of Object.keys(rs[0] as object)) {
      out[key] = summarize(rs.map((r) => (r as Record<string, number>)[key] as number)).p50;
    }
    return out as T;
  };
  return { cairn: median(rounds.cairn), hocuspocus: median(rounds.hocuspocus) };
}

const scenarios = (process.env.BENCH_SCENARIOS ?? "one-room,saturate,rooms-saturate,rooms,idle").split(",");
emit({ bench: "collab/config", metric: "duration", value: DURATION_MS, unit: "ms", peer: null, ratio: null });
emit({ bench: "collab/config", metric: "rounds", value: ROUNDS, unit: "rounds", peer: null, ratio: null });

if (scenarios.includes("one-room")) {
  const r = await compare((s) => openLoop(s, 1, 50, RATE, OBSERVERS));
  report(`collab/one-room-50x${RATE}hz`, r.cairn, r.hocuspocus);
}
if (scenarios.includes("saturate")) {
  const r = await compare((s) => saturate(s, 1, 50, OBSERVERS));
  report("collab/one-room-50-saturated", r.cairn, r.hocuspocus);
}
if (scenarios.includes("rooms-saturate")) {
  // Issue 20's scenario: 50 rooms × 20 clients, saturated; one observer per room.
  const r = await compare((s) => saturate(s, SAT_ROOMS, SAT_PER_ROOM, 1));
  report(`collab/rooms-${SAT_ROOMS}x${SAT_PER_ROOM}-saturated`, r.cairn, r.hocuspocus);
}
if (scenarios.includes("rooms")) {
  const r = await compare((s) => openLoop(s, ROOMS, 5, 1, 1));
  report(`collab/rooms-${ROOMS}x5`, r.cairn, r.hocuspocus);
}
if (scenarios.includes("idle")) {
  const r = await compare((s) => idleRooms(s, IDLE_ROOMS));
  emitPair(
    { bench: "collab/idle-room/cairn", value: r.cairn.rss },
    { bench: "collab/idle-room/hocuspocus", value: r.hocuspocus.rss },
    "rss_per_room",
    "bytes",
  );
  emitPair(
    { bench: "collab/idle-room/cairn", value: r.cairn.heap },
    { bench: "collab/idle-room/hocuspocus", value: r.hocuspocus.heap },
    "heap_per_room",
    "bytes",
  );
}
process.exit(0);
