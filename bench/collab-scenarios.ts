/**
 * One round of each bench/collab.ts scenario against one server: an open loop at a fixed rate,
 * saturation (updates kept in flight), and the memory of idle rooms.
 */
import { createLogger } from "../http/logger.ts";
import { type BenchClient, connectAll, roomClients, type Stats } from "./collab-client.ts";
import { cpuSeconds, memory, type ServerProc } from "./collab-contenders.ts";
import { QUICK, summarize } from "./runner.ts";

/** Per-round diagnostics with BENCH_DEBUG=1 (JSON log lines beside the results). */
const debugLog = process.env.BENCH_DEBUG ? createLogger("debug", { bench: "collab" }) : null;

export const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? (QUICK ? 3_000 : 10_000));
/** Updates each saturating client keeps in flight. */
const WINDOW = 4;

export interface RunResult {
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

/** From now: a reader of the CPU seconds the server and this process have used since. */
async function cpuSince(server: ServerProc): Promise<() => Promise<{ server: number; client: number }>> {
  const server0 = await cpuSeconds(server.pid);
  const client0 = process.cpuUsage();
  return async () => {
    const client = process.cpuUsage(client0);
    return { server: (await cpuSeconds(server.pid)) - server0, client: (client.user + client.system) / 1e6 };
  };
}

/**
 * A round's figures. Every client receives what the observers receive, so their count is scaled
 * up; `serverCpuDrained` includes the second after the window in which what was sent arrives.
 */
function runResult(
  stats: Stats,
  r: {
    perRoom: number;
    observers: number;
    open: number;
    seconds: number;
    window: { server: number; client: number };
    serverCpuDrained: number;
  },
): RunResult {
  const s = summarize(stats.latencies);
  const deliveries = (stats.deliveries * r.perRoom) / r.observers;
  return {
    open: r.open,
    deliveriesPerSec: deliveries / r.seconds,
    p50: s.p50,
    p99: s.p99,
    cpuPer100k: (r.serverCpuDrained / Math.max(1, deliveries)) * 100_000,
    clientCores: r.window.client / r.seconds,
    serverCores: r.window.server / r.seconds,
  };
}

const openShare = (clients: BenchClient[]): number => clients.filter((c) => c.isOpen).length / clients.length;

/** `perRoom` connected clients in each of `rooms` fresh rooms, and the stats their observers fill. */
async function connectedRooms(
  server: ServerProc,
  rooms: number,
  perRoom: number,
  observers: number,
): Promise<{ stats: Stats; clients: BenchClient[] }> {
  const stats: Stats = { deliveries: 0, latencies: [], since: Number.POSITIVE_INFINITY };
  const clients = roomClients(server.url, rooms, perRoom, observers, stats);
  await connectAll(clients);
  return { stats, clients };
}

/** Open loop: every client writes `rate` times a second for the duration. */
export async function openLoop(
  server: ServerProc,
  rooms: number,
  perRoom: number,
  rate: number,
  observers: number,
): Promise<RunResult> {
  const { stats, clients } = await connectedRooms(server, rooms, perRoom, observers);
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
  const drainedCpu = await cpuSince(server);
  stats.since = performance.now();
  await Bun.sleep(DURATION_MS);
  const measuredUntil = performance.now();
  const window = await drainedCpu();
  for (const t of timers) clearInterval(t);
  const open = openShare(clients);
  await Bun.sleep(1_000); // let what was sent arrive
  const serverCpuDrained = (await drainedCpu()).server;
  for (const c of clients) c.close();
  // Count only updates sent inside the window (their deliveries may land a little later).
  const seconds = (measuredUntil - stats.since) / 1000;
  debugLog?.debug(
    {
      server: server.kind,
      deliveries: stats.deliveries,
      samples: stats.latencies.length,
      seconds,
      open,
      server_cpu: serverCpuDrained,
    },
    "fixed-load round",
  );
  return runResult(stats, { perRoom, observers, open, seconds, window, serverCpuDrained });
}

/** Saturation: each client of `rooms` rooms keeps WINDOW acknowledged-on-receipt updates in flight. */
export async function saturate(
  server: ServerProc,
  rooms: number,
  perRoom: number,
  observers: number,
): Promise<RunResult> {
  const { stats, clients } = await connectedRooms(server, rooms, perRoom, observers);
  let running = true;
  for (const c of clients) {
    c.onAck = () => {
      while (running && c.inFlight < WINDOW) c.write();
    };
    for (let i = 0; i < WINDOW; i++) c.write();
  }
  await Bun.sleep(1_000);
  const drainedCpu = await cpuSince(server);
  stats.since = performance.now();
  await Bun.sleep(DURATION_MS);
  const until = performance.now();
  const open = openShare(clients);
  const window = await drainedCpu();
  debugLog?.debug(
    { server: server.kind, client_cpu_s: window.client, server_cpu_s: window.server },
    "saturation round",
  );
  running = false;
  await Bun.sleep(1_000);
  const serverCpuDrained = (await drainedCpu()).server;
  for (const c of clients) c.close();
  const seconds = (until - stats.since) / 1000;
  return runResult(stats, { perRoom, observers, open, seconds, window, serverCpuDrained });
}

/** Memory of `rooms` idle rooms (one client each, ~1 KB of text), per room. */
export async function idleRooms(server: ServerProc, rooms: number): Promise<{ rss: number; heap: number }> {
  const before = await memory(server);
  const { clients } = await connectedRooms(server, rooms, 1, 1);
  for (const c of clients) for (let i = 0; i < 32; i++) c.write("lorem ipsum dolor sit amet, cons");
  await Bun.sleep(3_000); // past the debounce: stored, idle
  const after = await memory(server);
  if (after.rooms < rooms) throw new Error(`${server.kind}: ${after.rooms} rooms loaded, expected ${rooms}`);
  for (const c of clients) c.close();
  return { rss: (after.rss - before.rss) / rooms, heap: (after.heapUsed - before.heapUsed) / rooms };
}
