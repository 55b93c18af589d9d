/**
 * The client side of bench/news-stream.ts: N real WebSocket clients in one process (the
 * server gets the other core), each sending its filter from the shared mix, then timing
 * every article frame from publish (the url stamp) to receipt.
 *
 *   bun bench/news-stream-clients.ts <ws url> <api key> <clients> <seed>
 */

import { benchFilter, type ClientCommand, type ClientEvent, type PhaseReport, STAMP } from "./news-stream-shared.ts";
import { summarize } from "./runner.ts";

const [url, apiKey, countArg, seedArg] = process.argv.slice(2);
if (!url || !apiKey) throw new Error("usage: news-stream-clients.ts <ws url> <api key> <clients> <seed>");
const clients = Number(countArg ?? 1000);
const seed = Number(seedArg ?? 1);
const CONCURRENT_CONNECTS = 200;

const send = (e: ClientEvent) => process.send?.(e);
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const now = () => performance.timeOrigin + performance.now();

/** Latencies per phase, in growable typed arrays (a million samples is 8 MB). */
const phases = new Map<number, { n: number; lat: Float64Array; lastAt: number }>();
function record(phase: number, ms: number, at: number): void {
  let p = phases.get(phase);
  if (!p) {
    p = { n: 0, lat: new Float64Array(1 << 16), lastAt: 0 };
    phases.set(phase, p);
  }
  p.lastAt = at;
  if (p.n === p.lat.length) {
    const bigger = new Float64Array(p.lat.length * 2);
    bigger.set(p.lat);
    p.lat = bigger;
  }
  p.lat[p.n++] = ms;
}

let maxDropped = 0;
let closed = 0;
const DROPPED = '"dropped":';

function onFrame(text: string): void {
  // Cheap reads, the same for both servers: no JSON.parse on the hot path.
  const at = text.indexOf(STAMP);
  if (at < 0 || !text.startsWith('{"type":"article"')) return;
  const t = Number.parseFloat(text.slice(at + STAMP.length, at + STAMP.length + 24));
  const p = text.indexOf("&p=", at);
  const phase = Number.parseInt(text.slice(p + 3, p + 6), 10);
  const receivedAt = now();
  record(phase, receivedAt - t, receivedAt);
  const d = text.indexOf(DROPPED);
  if (d >= 0 && d < 80) {
    const dropped = Number.parseInt(text.slice(d + DROPPED.length, d + DROPPED.length + 12), 10);
    if (dropped > maxDropped) maxDropped = dropped;
  }
}

function open(i: number): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url}?apikey=${encodeURIComponent(apiKey as string)}`);
    let ready = false;
    ws.addEventListener("open", () => ws.send(JSON.stringify(benchFilter(seed, i))));
    ws.addEventListener("message", (e) => {
      const text = String(e.data);
      if (!ready && text.startsWith('{"type":"filter_applied"')) {
        ready = true;
        resolve(true);
        return;
      }
      onFrame(text);
    });
    ws.addEventListener("close", () => {
      closed++;
      if (!ready) resolve(false);
    });
  });
}

const t0 = performance.now();
let failed = 0;
for (let next = 0; next < clients; ) {
  const wave: Promise<boolean>[] = [];
  for (; wave.length < CONCURRENT_CONNECTS && next < clients; next++) wave.push(open(next));
  for (const ok of await Promise.all(wave)) if (!ok) failed++;
}
send({ type: "connected", clients: clients - failed, failed, ms: performance.now() - t0, cpu: cpuSeconds() });

process.on("message", (raw) => {
  const c = raw as ClientCommand;
  if (c.cmd !== "report") return;
  const report: PhaseReport[] = [...phases].map(([phase, p]) => ({
    phase,
    received: p.n,
    latency: summarize(Array.from(p.lat.subarray(0, p.n))),
    lastAt: p.lastAt,
  }));
  send({ type: "report", phases: report, maxDropped, closed, cpu: cpuSeconds() });
});
