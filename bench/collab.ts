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
 * scaled to all receivers), but it shares the 2 CPUs with the server, so saturated runs are
 * bounded by the machine as much as by the server: "capacity" (deliveries per server
 * CPU-second) is the server's own share, and `server_cores` / `client_cores` say which side
 * held a whole core.
 *
 * Files: collab-contenders.ts (the two server processes), collab-client.ts (the load generator's
 * clients), collab-scenarios.ts (one round of each scenario); this one alternates the rounds
 * and reports.
 *
 *   bun bench/collab.ts            (BENCH_QUICK=1: 3 s, 1 round, 200 rooms)
 */
import { sendTimes } from "./collab-client.ts";
import { type Kind, type ServerProc, startServer } from "./collab-contenders.ts";
import { DURATION_MS, idleRooms, openLoop, type RunResult, saturate } from "./collab-scenarios.ts";
import { emit, emitPair, QUICK, round, summarize } from "./runner.ts";

const RATE = Number(process.env.BENCH_RATE ?? 20);
/** Clients of the 50-client room that decode and time what they receive (the rest only read). */
const OBSERVERS = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const ROOMS = Number(process.env.BENCH_ROOMS ?? (QUICK ? 200 : 1_000));
const IDLE_ROOMS = Number(process.env.BENCH_IDLE_ROOMS ?? (QUICK ? 200 : 1_000));
/** Issue 20's editor scenario: rooms × clients, every client saturating. */
const SAT_ROOMS = Number(process.env.BENCH_SAT_ROOMS ?? 50);
const SAT_PER_ROOM = Number(process.env.BENCH_SAT_PER_ROOM ?? 20);

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
