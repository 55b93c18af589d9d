/**
 * The hub's fan-out and cross-instance bridge, with sinks that record frames. Real
 * sockets are covered in sockets/news; here a PRNG drives what real sockets cannot do on
 * demand: backpressure and drains at arbitrary moments (STYLE habit 13).
 */
import { describe, expect, test } from "bun:test";
import { MemoryBus, MemoryPubSub } from "../../adapters/pubsub/index.ts";
import { type Article, type ArticleWire, matches, type NewsFilter } from "../../domain/news/types.ts";
import { makeArticle, pickDistinct, randomArticle, tickerUniverse, UNIVERSE } from "../../test/news-fixtures.ts";
import { fuzzSeed, prng } from "../../test/prng.ts";
import { NewsHub } from "./hub.ts";
import type { NewsSink, NewsSubscriber } from "./subscriber.ts";

type Frame = { type: "article"; seq: number; dropped: number; data: ArticleWire } | { type: string };

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** Records frames; `status` decides what each send reports (Bun's codes). */
class RecordingSink implements NewsSink {
  readonly frames: Frame[] = [];
  closedWith: number | null = null;
  status: (text: string) => number = (t) => t.length;
  sendText(text: string): number {
    const s = this.status(text);
    if (s !== 0) this.frames.push(JSON.parse(text) as Frame);
    return s;
  }
  cork(fn: () => void): void {
    fn();
  }
  close(code: number): void {
    this.closedWith = code;
  }
  articles() {
    return this.frames.filter((f): f is Extract<Frame, { type: "article" }> => f.type === "article");
  }
}

const meta = (n: number) => ({ conn_id: `c${n}`, tenant_id: "t", user_id: n });
const tick = () => new Promise<void>((r) => setTimeout(r, 0));
/** The end of the current event-loop turn: what the hub held is written by then. */
const turn = () => new Promise<void>((r) => setImmediate(r));

describe("NewsHub fan-out under random backpressure", () => {
  test("seq is contiguous, dropped only grows, every frame matched, and nothing vanishes", async () => {
    const seed = fuzzSeed("news-hub");
    const rng = prng(seed);
    const tickers = tickerUniverse(8);
    const hub = new NewsHub({ pubsub: null, channel: "unused", logger: quiet, queueSize: 8 });
    interface Conn {
      sink: RecordingSink;
      sub: NewsSubscriber;
      filter: NewsFilter;
      refiltered: boolean;
      congested: boolean;
      matched: Set<string>;
      matchedCount: number;
    }
    const conns: Conn[] = [];
    for (let i = 0; i < 12; i++) {
      const sink = new RecordingSink();
      const sub = hub.connect(sink, meta(i));
      if (!sub) throw new Error("hub refused a connection");
      const conn: Conn = {
        sink,
        sub,
        filter: {},
        refiltered: false,
        congested: false,
        matched: new Set(),
        matchedCount: 0,
      };
      // A frame sent after a refilter must match the filter in force when it is sent.
      sink.status = (text) => {
        const f = JSON.parse(text) as Frame;
        if ("data" in f && conn.refiltered) {
          const a = published.get(f.data.article_id) as Article;
          if (!matches(conn.filter, a)) throw new Error(`seed ${seed}: sent an article the new filter excludes`);
        }
        const r = rng.next();
        if (r < 0.15) {
          conn.congested = true;
          return -1;
        }
        if (r < 0.18) {
          conn.congested = true;
          return 0;
        }
        return text.length;
      };
      conns.push(conn);
    }
    const published = new Map<string, Article>();
    for (let step = 0; step < 3_000; step++) {
      const op = rng.next();
      if (op < 0.08) {
        const c = rng.pick(conns);
        c.filter = {
          ...(rng.bool() ? { tickers: pickDistinct(tickers, 1 + rng.int(3), rng.next) } : {}),
          ...(rng.bool(0.3) ? { categories: pickDistinct(UNIVERSE.categories, 2, rng.next) } : {}),
        };
        c.refiltered = true;
        hub.setFilter(c.sub, c.filter);
      } else if (op < 0.3) {
        const c = rng.pick(conns);
        c.congested = false;
        c.sub.drain();
      } else if (op < 0.4) {
        // The turn ends: what the hub held is written (refilters and drains fall inside turns).
        await turn();
      } else {
        const a = randomArticle(rng, tickers);
        published.set(a.article_id, a);
        for (const c of conns) {
          if (matches(c.filter, a)) {
            c.matched.add(a.article_id);
            c.matchedCount++;
          }
        }
        await hub.publish(a);
      }
    }
    // Let every connection drain completely.
    await turn();
    for (let round = 0; round < 1_000 && conns.some((c) => c.sub.stats().queued > 0); round++) {
      for (const c of conns) {
        c.sink.status = (t) => t.length;
        c.sub.drain();
      }
      await tick();
    }
    for (const c of conns) {
      const got = c.sink.articles();
      const stats = c.sub.stats();
      expect(stats.queued).toBe(0);
      expect(stats.queuedMax).toBeLessThanOrEqual(8);
      got.forEach((f, i) => {
        if (f.seq !== i + 1) throw new Error(`seed ${seed}: ${c.sub.meta.conn_id} seq ${f.seq} at position ${i + 1}`);
        if (i > 0 && f.dropped < (got[i - 1]?.dropped ?? 0)) throw new Error(`seed ${seed}: dropped went down`);
        if (!c.matched.has(f.data.article_id)) throw new Error(`seed ${seed}: delivered an article it never matched`);
      });
      expect(stats.sent).toBe(got.length);
      // Without refilters nothing is skipped, so every match was either sent or counted lost.
      if (!c.refiltered) expect(got.length + stats.dropped).toBe(c.matchedCount);
    }
    const totalDropped = conns.reduce((n, c) => n + c.sub.stats().dropped, 0);
    expect(hub.stats().dropped).toBe(totalDropped);
    // The schedule must have produced losses, or the test proves little.
    expect(totalDropped).toBeGreaterThan(0);
    await hub.close();
  });

  test("recipients of one article each get their own seq and dropped, shared frames or not", async () => {
    const hub = new NewsHub({ pubsub: null, channel: "unused", logger: quiet, queueSize: 8 });
    const open = (n: number, filter: NewsFilter) => {
      const sink = new RecordingSink();
      const sub = hub.connect(sink, meta(n));
      if (!sub) throw new Error("hub refused a connection");
      hub.setFilter(sub, filter);
      return { sink, sub };
    };
    const post = async (title: string, tickers: string[]) => {
      await hub.publish(makeArticle({ title, company_tickers: tickers }));
      await turn();
    };
    // a and b agree on every counter; c follows one ticker; d refuses one frame; e comes late.
    const a = open(1, {}).sink;
    const b = open(2, {}).sink;
    const c = open(3, { tickers: ["AAA"] }).sink;
    const { sink: d, sub: dSub } = open(4, {});
    await post("one", ["BBB"]);
    d.status = () => 0;
    await post("two", ["AAA"]);
    d.status = (t) => t.length;
    dSub.drain();
    const e = open(5, {}).sink;
    await post("three", ["AAA"]);
    await post("four", ["BBB"]);
    const seen = (s: RecordingSink) => s.articles().map((f) => [f.seq, f.dropped, f.data.title]);
    const all = [
      [1, 0, "one"],
      [2, 0, "two"],
      [3, 0, "three"],
      [4, 0, "four"],
    ];
    expect(seen(a)).toEqual(all);
    expect(seen(b)).toEqual(all);
    expect(seen(c)).toEqual([
      [1, 0, "two"],
      [2, 0, "three"],
    ]);
    expect(seen(d)).toEqual([
      [1, 0, "one"],
      [2, 1, "three"],
      [3, 1, "four"],
    ]);
    expect(seen(e)).toEqual([
      [1, 0, "three"],
      [2, 0, "four"],
    ]);
    await hub.close();
  });
});

describe("NewsHub turns", () => {
  test("a socket that throws is logged and keeps neither the others nor its own next turn from frames", async () => {
    const errors: object[] = [];
    const hub = new NewsHub({ pubsub: null, channel: "unused", logger: { ...quiet, error: (o) => errors.push(o) } });
    const sinks = [new RecordingSink(), new RecordingSink(), new RecordingSink()];
    for (const [i, sink] of sinks.entries()) hub.connect(sink, meta(i));
    const bad = sinks[1] as RecordingSink;
    bad.status = () => {
      throw new Error("socket gone wrong");
    };
    // "one" goes out inside publish(), "two" and "three" at the turn's end: the throw is
    // caught on both paths.
    for (const title of ["one", "two", "three"]) await hub.publish(makeArticle({ title }));
    await turn();
    const titles = (s: RecordingSink) => s.articles().map((f) => f.data.title);
    expect(titles(sinks[0] as RecordingSink)).toEqual(["one", "two", "three"]);
    expect(titles(sinks[2] as RecordingSink)).toEqual(["one", "two", "three"]);
    expect(errors).toEqual([expect.objectContaining({ conn_id: "c1" }), expect.objectContaining({ conn_id: "c1" })]);
    bad.status = (t) => t.length;
    for (const title of ["four", "five"]) await hub.publish(makeArticle({ title }));
    await turn();
    expect(titles(bad)).toEqual(["four", "five"]);
    expect(titles(sinks[2] as RecordingSink)).toEqual(["one", "two", "three", "four", "five"]);
    await hub.close();
  });
});

describe("NewsHub across instances (in-memory bus)", () => {
  const twoHubs = async () => {
    const bus = new MemoryBus();
    const a = new NewsHub({ pubsub: new MemoryPubSub(bus), channel: "news", logger: quiet });
    const b = new NewsHub({ pubsub: new MemoryPubSub(bus), channel: "news", logger: quiet });
    await a.start();
    await b.start();
    const sa = new RecordingSink();
    const sb = new RecordingSink();
    a.connect(sa, meta(1));
    b.connect(sb, meta(2));
    return { bus, a, b, sa, sb };
  };

  test("an article published on one instance reaches both, once each", async () => {
    const { a, b, sa, sb } = await twoHubs();
    const x = makeArticle();
    const y = makeArticle({ title: "from b" });
    await a.publish(x);
    await b.publish(y);
    await tick();
    expect(sa.articles().map((f) => f.data.article_id)).toEqual([x.article_id, y.article_id]);
    expect(sb.articles().map((f) => f.data.article_id)).toEqual([x.article_id, y.article_id]);
    expect(a.stats()).toMatchObject({ published: 1, received: 1, duplicates: 0 });
    // The same article ingested on both instances is still delivered once everywhere.
    await b.publish({ ...x });
    await tick();
    expect(sa.articles()).toHaveLength(2);
    expect(sb.articles()).toHaveLength(2);
    expect(b.stats().duplicates).toBe(1);
    await a.close();
    await b.close();
  });

  test("a failed broadcast still serves local subscribers, and is counted and logged, not thrown", async () => {
    const ps = new MemoryPubSub();
    const errors: object[] = [];
    const hub = new NewsHub({ pubsub: ps, channel: "news", logger: { ...quiet, error: (o) => errors.push(o) } });
    await hub.start();
    const sink = new RecordingSink();
    hub.connect(sink, meta(1));
    await ps.close(); // every publish on it now fails, as with Redis down
    await hub.publish(makeArticle());
    await hub.publish(makeArticle());
    await tick();
    expect(sink.articles()).toHaveLength(2);
    expect(hub.stats().broadcast_failures).toBe(2);
    expect(errors).toHaveLength(1); // throttled: one line per interval
    await hub.close();
  });

  test("invalid channel messages are counted and ignored", async () => {
    const { bus, a, b, sa } = await twoHubs();
    const raw = new MemoryPubSub(bus);
    await raw.publish("news", "not json");
    await raw.publish("news", JSON.stringify({ v: 1, origin: "x", article: { article_id: "no other fields" } }));
    await tick();
    expect(a.stats().invalid).toBe(2);
    expect(sa.articles()).toHaveLength(0);
    await a.close();
    await b.close();
  });

  test("close() says goodbye with 1001, refuses new connections and publishes", async () => {
    const { a, b, sa } = await twoHubs();
    await a.close();
    expect(sa.closedWith).toBe(1001);
    expect(a.connect(new RecordingSink(), meta(3))).toBeNull();
    expect(a.publish(makeArticle())).rejects.toThrow(/closed/);
    await b.close();
  });

  test("closeStreams() closes every stream with 1001 and refuses new ones, but articles still flow between instances", async () => {
    const { a, b, sa, sb } = await twoHubs();
    expect(a.closeStreams()).toBe(1);
    expect(sa.closedWith).toBe(1001);
    expect(a.stats().subscribers).toBe(0);
    expect(a.connect(new RecordingSink(), meta(3))).toBeNull();
    expect(a.closeStreams()).toBe(0);
    // The ingest keeps publishing until its workers stop: stored articles still reach others.
    const x = makeArticle({ title: "during shutdown" });
    await a.publish(x);
    await tick();
    expect(sb.articles().map((f) => f.data.article_id)).toEqual([x.article_id]);
    expect(sa.articles()).toHaveLength(0);
    await a.close();
    await b.close();
  });

  test("the ring keeps the newest articles only, newest first", async () => {
    const hub = new NewsHub({ pubsub: null, channel: "x", logger: quiet, ringSize: 3 });
    const arts = Array.from({ length: 5 }, (_, i) => makeArticle({ title: `n${i}` }));
    for (const x of arts) await hub.publish(x);
    expect(hub.recent(10).map((x) => x.title)).toEqual(["n4", "n3", "n2"]);
    expect(hub.has(arts[0]?.article_id ?? "")).toBe(false);
    expect(hub.stats().ring).toEqual({ size: 3, capacity: 3 });
    await hub.close();
  });
});
