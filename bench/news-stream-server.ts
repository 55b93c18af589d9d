/**
 * The server side of bench/news-stream.ts, one process per contender:
 *
 *   bun bench/news-stream-server.ts cairn <seed>   the real service (embedded profile), articles
 *                                                  published through service.newsHub as ingest does
 *   bun bench/news-stream-server.ts bare <seed>    the ceiling: a bare Bun WebSocket server that
 *                                                  sends each article's one pre-encoded frame to
 *                                                  recipients computed before the clock starts
 *
 * Driven over IPC by the orchestrator (ServerCommand in, ServerEvent out).
 */
import type { ServerWebSocket } from "bun";
import { compileFilter, NewsIndex } from "../actors/index.ts";
import { type Article, toWire } from "../domain/news/types.ts";
import { parseClientMessage } from "../sockets/index.ts";
import { startTestService } from "../test/harness.ts";
import { serve } from "../test/serve.ts";
import { benchArticle, type ServerCommand, type ServerEvent, type ServerMode, stampUrl } from "./news-stream-shared.ts";
import { summarize } from "./runner.ts";

const mode = process.argv[2] as ServerMode;
const seed = Number(process.argv[3] ?? 1);
if (mode !== "cairn" && mode !== "bare") throw new Error("usage: news-stream-server.ts cairn|bare <seed>");

const send = (e: ServerEvent) => process.send?.(e);
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const memory = () => {
  Bun.gc(true);
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
};

/** What each contender does per article, and its view of the connections. */
interface Contender {
  port: number;
  apiKey: string;
  publish(a: Article): Promise<void>;
  /** Recipients matched so far (the deliveries owed), read once per phase. */
  matched(): number;
  stats(): { subscribers: number; maxDropped: number; maxBuffered: number };
  /** Called before each phase's clock starts with its articles (the ceiling precomputes recipients). */
  prepare(articles: Article[]): void;
}

async function cairn(): Promise<Contender> {
  const svc = await startTestService({ CAIRN_RATE_LIMIT_SCALE: "1000000" });
  const http = serve(svc.service);
  const hub = svc.service.newsHub;
  return {
    port: http.server.port ?? 0,
    apiKey: await svc.apiKey("bench@cairn.local", "enterprise"),
    publish: (a) => hub.publish(a),
    matched: () => hub.stats().matched,
    stats() {
      const subs = hub.subscriberStats();
      return {
        subscribers: subs.length,
        maxDropped: subs.reduce((n, s) => Math.max(n, s.dropped), 0),
        maxBuffered: 0,
      };
    },
    prepare() {},
  };
}

interface BareData {
  filter: ReturnType<typeof compileFilter>;
}

async function bare(): Promise<Contender> {
  const sockets = new Set<ServerWebSocket<BareData>>();
  const server = Bun.serve<BareData>({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req, srv) {
      if (srv.upgrade(req, { data: { filter: compileFilter({}) } })) return undefined;
      return new Response("websocket only", { status: 426 });
    },
    websocket: {
      open(ws) {
        sockets.add(ws);
        ws.sendText('{"type":"connected","message":"bare"}');
      },
      message(ws, m) {
        const parsed = parseClientMessage(String(m));
        if (!parsed.ok) return;
        ws.data.filter = compileFilter(parsed.filter);
        ws.sendText(JSON.stringify({ type: "filter_applied", filter: parsed.filter }));
      },
      close(ws) {
        sockets.delete(ws);
      },
    },
  });
  const recipients = new Map<string, ServerWebSocket<BareData>[]>();
  let matched = 0;
  return {
    port: server.port ?? 0,
    apiKey: "unused",
    async publish(a) {
      const to = recipients.get(a.article_id) ?? [...sockets];
      const frame = `{"type":"article","data":${JSON.stringify(toWire(a))}}`;
      for (const ws of to) ws.sendText(frame);
      matched += to.length;
    },
    matched: () => matched,
    stats() {
      let maxBuffered = 0;
      for (const ws of sockets) maxBuffered = Math.max(maxBuffered, ws.getBufferedAmount());
      return { subscribers: sockets.size, maxDropped: 0, maxBuffered };
    },
    prepare(articles) {
      // The ceiling does no matching on the clock: recipient lists are ready beforehand.
      const index = new NewsIndex<ServerWebSocket<BareData>>();
      for (const ws of sockets) index.set(ws, ws.data.filter);
      for (const a of articles) {
        const to: ServerWebSocket<BareData>[] = [];
        index.match(a, (ws) => to.push(ws));
        recipients.set(a.article_id, to);
      }
    },
  };
}

const contender = mode === "cairn" ? await cairn() : await bare();

/** Event-loop lag: how late a 2 ms timer fires. A blocked loop delays every delivery. */
let lags: number[] = [];
let lastTick = performance.now();
setInterval(() => {
  const t = performance.now();
  lags.push(Math.max(0, t - lastTick - 2));
  lastTick = t;
}, 2);
let nextArticle = 0;

/** Publishes `rate` articles/s for `seconds`, on a schedule that catches up if it falls behind. */
async function runPhase(phase: number, rate: number, seconds: number): Promise<void> {
  const total = Math.round(rate * seconds);
  const articles = Array.from({ length: total }, (_, k) => benchArticle(seed, nextArticle + k));
  nextArticle += total;
  contender.prepare(articles);
  const matched0 = contender.matched();
  lags = [];
  const cpu0 = cpuSeconds();
  const t0 = performance.now();
  const startedAt = performance.timeOrigin + t0;
  let i = 0;
  while (i < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate) + 1);
    for (; i < due; i++) {
      const a = articles[i] as Article;
      a.url = stampUrl(a.url, phase);
      await contender.publish(a);
    }
    await Bun.sleep(1);
  }
  send({
    type: "published",
    phase,
    articles: total,
    expected: contender.matched() - matched0,
    seconds: (performance.now() - t0) / 1000,
    startedAt,
    cpu: cpuSeconds() - cpu0,
    lag: summarize(lags),
  });
}

process.on("message", (raw) => {
  const c = raw as ServerCommand;
  if (c.cmd === "publish") void runPhase(c.phase, c.rate, c.seconds);
  else if (c.cmd === "stats") send({ type: "stats", ...memory(), ...contender.stats() });
  else if (c.cmd === "exit") process.exit(0);
  else if (c.cmd === "end") void contender.publish({ ...benchArticle(seed, 99_999_999), title: "END" });
});

send({ type: "ready", port: contender.port, apiKey: contender.apiKey, ...memory() });
