/**
 * What the per-connection envelope costs (issue item 4, "measure"): every article frame
 * carries the connection's own `seq` and `dropped`, so the bytes differ per recipient,
 * yet the article itself is encoded once. Compared here, on real sockets, per frame sent:
 *
 *   shared   one flat string sent to everyone (the ceiling: no per-connection fields)
 *   spliced  `{"type":"article","seq":N,"dropped":D,"data":` + shared wire JSON + `}`
 *            (what NewsSubscriber sends)
 *   spliced-ascii  the same with the wire JSON's non-ASCII escaped (\uXXXX), so the string
 *            is 8-bit and needs no UTF-8 transcoding per send (kept out: no measurable gain)
 *   corked   spliced, each send inside ws.cork (what NewsSubscriber does per flush)
 *   per-recipient-stringify  JSON.stringify of the whole envelope for every recipient
 *            (the naive way, the peer that "encode once" beats)
 *
 *   node_modules/.bin/bun bench/news-envelope.ts        (BENCH_QUICK=1 for a smoke run)
 */
import type { ServerWebSocket } from "bun";
import { toWire } from "../domain/news/types.ts";
import { makeArticle } from "../test/news-fixtures.ts";
import { emit, QUICK, round, summarize } from "./runner.ts";

const CLIENTS = QUICK ? 200 : 1_000;
const ARTICLES = QUICK ? 20 : 60;
const ROUNDS = QUICK ? 3 : 7;

const sockets: ServerWebSocket<undefined>[] = [];
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req, srv) => (srv.upgrade(req) ? undefined : new Response("ws only", { status: 426 })),
  websocket: {
    open: (ws) => void sockets.push(ws),
    message: () => {},
  },
});

// The readers live in another process so their work is not on this clock.
const readerSource = `
  let got = 0; let open = 0;
  for (let i = 0; i < ${CLIENTS}; i++) {
    const ws = new WebSocket("ws://127.0.0.1:${server.port}/");
    ws.onopen = () => { if (++open === ${CLIENTS}) process.stdout.write("open\\n"); };
    ws.onmessage = () => { got++; };
  }
  setInterval(() => process.stdout.write(got + "\\n"), 20);
`;
const reader = Bun.spawn([process.execPath, "-e", readerSource], { stdout: "pipe", stderr: "inherit" });
const out = reader.stdout.getReader();
let lastCount = 0;
let opened = false;
void (async () => {
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await out.read();
    if (done) return;
    buf += dec.decode(value, { stream: true });
    const lines = buf.split("\n");
    buf = lines.pop() ?? "";
    for (const l of lines) {
      if (l === "open") opened = true;
      else lastCount = Number(l);
    }
  }
})();
while (!opened || sockets.length < CLIENTS) await Bun.sleep(10);

const articles = Array.from({ length: ARTICLES }, (_, i) =>
  makeArticle({ title: `Headline ${i} \u2014 shares \u201cjump\u201d` }, i),
);
const wires = articles.map((a) => JSON.stringify(toWire(a)));
/** The same JSON with non-ASCII escaped (\uXXXX): an 8-bit string, copied without transcoding. */
const asciiWires = wires.map((w) =>
  w.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
);
const seqs = new Uint32Array(CLIENTS);
const nextSeq = (i: number): number => {
  const n = (seqs[i] ?? 0) + 1;
  seqs[i] = n;
  return n;
};

type Variant = (ws: ServerWebSocket<undefined>, i: number, wire: string, articleIndex: number) => void;
const variants: Record<string, Variant> = {
  shared: (ws, _i, _w, k) => void ws.sendText(sharedFrames[k] as string),
  spliced: (ws, i, wire) => {
    const seq = nextSeq(i);
    ws.sendText(`{"type":"article","seq":${seq},"dropped":0,"data":${wire}}`);
  },
  "spliced-ascii": (ws, i, _w, k) => {
    const seq = nextSeq(i);
    ws.sendText(`{"type":"article","seq":${seq},"dropped":0,"data":${asciiWires[k]}}`);
  },
  corked: (ws, i, wire) => {
    const seq = nextSeq(i);
    ws.cork(() => ws.sendText(`{"type":"article","seq":${seq},"dropped":0,"data":${wire}}`));
  },
  "per-recipient-stringify": (ws, i, _w, k) => {
    const seq = nextSeq(i);
    ws.sendText(
      JSON.stringify({ type: "article", seq, dropped: 0, data: toWire(articles[k] as (typeof articles)[0]) }),
    );
  },
};
const sharedFrames = wires.map((w) => `{"type":"article","data":${w}}`);

/** One round: every article to every client; the send loop alone is timed (ns per frame). */
async function runRound(send: Variant): Promise<number> {
  const target = lastCount + CLIENTS * ARTICLES;
  let ms = 0;
  for (let k = 0; k < ARTICLES; k++) {
    const wire = wires[k] as string;
    const t0 = performance.now();
    for (let i = 0; i < CLIENTS; i++) send(sockets[i] as ServerWebSocket<undefined>, i, wire, k);
    ms += performance.now() - t0;
    await Bun.sleep(0); // let the sockets flush between articles, as the hub's ticks do
  }
  while (lastCount < target) await Bun.sleep(5);
  return (ms * 1e6) / (CLIENTS * ARTICLES);
}

const results: Record<string, number[]> = {};
for (const name of Object.keys(variants)) results[name] = [];
await runRound(variants.shared as Variant); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, v] of Object.entries(variants)) results[name]?.push(await runRound(v));
}
const median = (name: string) => summarize(results[name] ?? []).p50;
emit({
  bench: "news-envelope/shared",
  metric: "send_cost",
  value: round(median("shared")),
  unit: "ns/frame",
  peer: null,
  ratio: null,
});
for (const name of ["spliced", "spliced-ascii", "corked", "per-recipient-stringify"]) {
  emit({
    bench: `news-envelope/${name}`,
    metric: "send_cost",
    value: round(median(name)),
    unit: "ns/frame",
    peer: "news-envelope/shared",
    ratio: round(median(name) / median("shared"), 4),
  });
}
emit({
  bench: "news-envelope/frame",
  metric: "size",
  value: (sharedFrames[0] ?? "").length,
  unit: "chars",
  peer: null,
  ratio: null,
});
reader.kill();
await reader.exited;
await server.stop(true);
