/**
 * The news fan-out's own CPU per frame, without sockets: what bench/news-stream.ts cannot
 * separate from the kernel's share on a busy machine. Both sides write to the same no-op
 * sink (it counts bytes and reads each frame as a send would), so the socket's cost is out of
 * both:
 *
 *   cairn  NewsHub.publish per article: dedup ring, encode once, index match, per-recipient
 *          envelope (`seq`, `dropped`), made flat as a send does, and the subscriber's write path
 *   bare   the ceiling's loop: each article's one frame to recipients computed before the
 *          clock (as bench/news-stream-server.ts "bare" does)
 *
 * Same subscribers (the news-stream filter mix), same articles, alternating rounds, CPU time
 * (process.cpuUsage), so a shared machine slows both alike. Ratio: ours / bare per frame.
 *
 *   node_modules/.bin/bun bench/news-stream-cpu.ts   (BENCH_NEWS_CLIENTS, default 19,500; BENCH_QUICK=1)
 */
import { compileFilter, NewsHub, NewsIndex, type NewsSink } from "../actors/index.ts";
import { type Article, toWire } from "../domain/news/types.ts";
import { parseClientMessage } from "../sockets/index.ts";
import { benchArticle, benchFilter } from "./news-stream-shared.ts";
import { emit, emitPair, QUICK, round, summarize } from "./runner.ts";

const CLIENTS = Number(process.env.BENCH_NEWS_CLIENTS ?? (QUICK ? 2_000 : 19_500));
const ARTICLES = QUICK ? 500 : 3_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 5));
/** Articles per event-loop turn (5,000 articles/s published from a 1 ms loop). */
const PER_TICK = 5;
const SEED = 20_240_611;

let bytes = 0;
/**
 * Reads one character of every frame, as Bun's sendText reads all of it: a frame built by
 * concatenation is a rope until then, and making it one flat string (an allocation and a
 * copy of the ~1 kB frame, collected later) is part of what each send costs. The bare loop's
 * frame is flat already, so this costs it nothing.
 */
class CountingSink implements NewsSink {
  sendText(text: string): number {
    bytes += text.charCodeAt(text.length >> 1) > 0 ? text.length : 0;
    return text.length;
  }
  cork(fn: () => void): void {
    fn();
  }
  close(): void {}
}
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const turn = () => new Promise<void>((r) => setImmediate(r));

const hub = new NewsHub({ pubsub: null, channel: "bench", logger: { info() {}, warn() {}, error() {} } });
const bareIndex = new NewsIndex<CountingSink>();
const bareSinks: CountingSink[] = [];
for (let i = 0; i < CLIENTS; i++) {
  const parsed = parseClientMessage(JSON.stringify(benchFilter(SEED, i)));
  if (!parsed.ok) throw new Error(parsed.message);
  const sub = hub.connect(new CountingSink(), { conn_id: `c${i}`, tenant_id: "t", user_id: i });
  if (!sub) throw new Error("hub refused a connection");
  hub.setFilter(sub, parsed.filter);
  const sink = new CountingSink();
  bareSinks.push(sink);
  bareIndex.set(sink, compileFilter(parsed.filter));
}

let next = 0;
const articles = (): Article[] => Array.from({ length: ARTICLES }, () => benchArticle(SEED, next++));

/** CPU seconds per frame for one round of ours. */
async function cairnRound(batch: Article[]): Promise<number> {
  const m0 = hub.stats().matched;
  const c0 = cpu();
  for (let i = 0; i < batch.length; i += PER_TICK) {
    for (const a of batch.slice(i, i + PER_TICK)) await hub.publish(a);
    await turn();
  }
  return (cpu() - c0) / (hub.stats().matched - m0);
}

/** The same for the ceiling: recipients and frames are ready before the clock, as in news-stream. */
async function bareRound(batch: Article[]): Promise<number> {
  const recipients = batch.map((a) => {
    const to: CountingSink[] = [];
    bareIndex.match(a, (s) => to.push(s));
    return to;
  });
  let frames = 0;
  const c0 = cpu();
  for (let i = 0; i < batch.length; i += PER_TICK) {
    for (let k = i; k < Math.min(batch.length, i + PER_TICK); k++) {
      const a = batch[k] as Article;
      const frame = `{"type":"article","data":${JSON.stringify(toWire(a))}}`;
      for (const s of recipients[k] ?? []) s.sendText(frame);
      frames += recipients[k]?.length ?? 0;
    }
    await turn();
  }
  return (cpu() - c0) / frames;
}

await cairnRound(articles()); // warm-up, both
await bareRound(articles());
const ours: number[] = [];
const bare: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  ours.push(await cairnRound(articles()));
  bare.push(await bareRound(articles()));
}
const ns = (xs: number[]) => summarize(xs.map((x) => x * 1e9)).p50;
emit({
  bench: "news-stream-cpu/cairn",
  metric: "subscribers",
  value: CLIENTS,
  unit: "connections",
  peer: null,
  ratio: null,
});
emitPair(
  { bench: "news-stream-cpu/cairn", value: round(ns(ours), 1) },
  { bench: "news-stream-cpu/bare-bun", value: round(ns(bare), 1) },
  "cpu_per_frame_p50_of_rounds",
  "ns",
);
// Keeps the sinks' work observable, so no engine can drop it.
if (bytes === 0) throw new Error("nothing was written");
