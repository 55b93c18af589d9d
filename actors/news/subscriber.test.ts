/**
 * The subscriber's two paths (subscriber.ts): articles written straight to a socket that
 * takes frames (a turn's first at once, its later ones together when it ends), queued
 * (bounded, drop oldest) while it pushes back, and back again after `drain`. The sink answers
 * with Bun's send codes on demand, so each switch happens at a chosen frame; what is asserted
 * is the frames and counters, never timings.
 */
import { describe, expect, test } from "bun:test";
import type { Article, ArticleWire } from "../../domain/news/types.ts";
import { makeArticle } from "../../test/news-fixtures.ts";
import { NewsHub } from "./hub.ts";
import type { NewsSink } from "./subscriber.ts";

type ArticleFrame = { type: "article"; seq: number; dropped: number; data: ArticleWire };

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** Records frames Bun would have taken; `next` is the code the following sends report. */
class ScriptedSink implements NewsSink {
  readonly frames: ArticleFrame[] = [];
  next: "ok" | "backpressure" | "refuse" = "ok";
  corks = 0;
  sendText(text: string): number {
    const frame = JSON.parse(text) as ArticleFrame | { type: string };
    if (this.next === "refuse") return 0;
    if (frame.type === "article") this.frames.push(frame as ArticleFrame);
    return this.next === "backpressure" ? -1 : text.length;
  }
  cork(fn: () => void): void {
    this.corks++;
    fn();
  }
  close(): void {}
  /** [seq, dropped, title] per article frame. */
  seen(): [number, number, string][] {
    return this.frames.map((f) => [f.seq, f.dropped, f.data.title]);
  }
}

const article = (title: string): Article => makeArticle({ title });
/** [seq, dropped, title] of articles a1..an, sent in order with nothing lost. */
const inOrder = (n: number): [number, number, string][] =>
  Array.from({ length: n }, (_, i) => [i + 1, 0, `a${i + 1}`] as [number, number, string]);
/** The end of the current event-loop turn: what the hub held is written by then. */
const turn = () => new Promise<void>((r) => setImmediate(r));

async function setup(queueSize: number, turnFrames?: number) {
  const lost: number[] = [];
  const recovered: number[] = [];
  const hub = new NewsHub({
    pubsub: null,
    channel: "unused",
    queueSize,
    turnFrames,
    logger: {
      ...quiet,
      warn: () => lost.push(1),
      info: (o) => recovered.push((o as { lost: number }).lost),
    },
  });
  const sink = new ScriptedSink();
  const sub = hub.connect(sink, { conn_id: "c1", tenant_id: "t", user_id: 1 });
  if (!sub) throw new Error("hub refused the connection");
  /** Publishes the titles in one turn and lets it end. */
  const publish = async (...titles: string[]) => {
    for (const t of titles) await hub.publish(article(t));
    await turn();
  };
  return { hub, sink, sub, publish, lost, recovered };
}

describe("NewsSubscriber: direct writes and the queue", () => {
  test("a turn's first article is written at once, its later ones together in one corked write", async () => {
    const { hub, sink, sub, publish } = await setup(3);
    await hub.publish(article("a1"));
    // The first article of a turn: written inside publish(), no cork.
    expect(sink.seen()).toEqual([[1, 0, "a1"]]);
    expect(sink.corks).toBe(0);
    for (const t of ["a2", "a3", "a4"]) await hub.publish(article(t));
    // The later ones are held until the turn ends, then written together.
    expect(sink.seen()).toHaveLength(1);
    await turn();
    await publish("a5");
    expect(sink.seen()).toEqual(inOrder(5));
    expect(sink.corks).toBe(1);
    expect(sub.stats()).toMatchObject({ sent: 5, dropped: 0, queued: 0, queuedMax: 0, blocked: false });
    await hub.close();
  });

  test("a turn that reaches its frame budget is written at once, not at its end", async () => {
    const { hub, sink } = await setup(10, 3);
    const titles = () => sink.seen().map((f) => f[2]);
    await hub.publish(article("a1"));
    await hub.publish(article("a2"));
    await hub.publish(article("a3"));
    expect(titles()).toEqual(["a1"]);
    await hub.publish(article("a4"));
    expect(titles()).toEqual(["a1", "a2", "a3", "a4"]);
    await hub.publish(article("a5"));
    expect(titles()).toHaveLength(4);
    await turn();
    expect(sink.seen()).toEqual(inOrder(5));
    await hub.close();
  });

  test("an article held when the filter changes is sent only if the new filter matches it", async () => {
    const { hub, sink, sub } = await setup(10);
    await hub.publish(makeArticle({ title: "x0", categories: ["markets"] }));
    await hub.publish(makeArticle({ title: "x1", categories: ["earnings"] }));
    await hub.publish(makeArticle({ title: "x2", categories: ["markets"] }));
    hub.setFilter(sub, { categories: ["markets"] });
    await turn();
    expect(sink.seen()).toEqual([
      [1, 0, "x0"],
      [2, 0, "x2"],
    ]);
    expect(sub.stats()).toMatchObject({ sent: 2, dropped: 0 });
    await hub.close();
  });

  test("a connection that closes before its turn ends is sent nothing more of it", async () => {
    const { hub, sink, sub } = await setup(10);
    await hub.publish(article("a0"));
    await hub.publish(article("a1"));
    await hub.publish(article("a2"));
    hub.disconnect(sub);
    await turn();
    // a0 went out at once; nothing held reaches the closed socket, not even an empty cork.
    expect(sink.seen()).toEqual([[1, 0, "a0"]]);
    expect(sink.corks).toBe(0);
    expect(hub.stats()).toMatchObject({ subscribers: 0, matched: 3 });
    await hub.close();
  });

  test("backpressure switches to the queue and drain switches back; seq and dropped stay exact", async () => {
    const { hub, sink, sub, publish, lost, recovered } = await setup(3);
    await publish("a1", "a2");
    // Bun buffers a3 and reports backpressure: a3 counts as sent, what follows queues.
    sink.next = "backpressure";
    await publish("a3");
    expect(sub.stats()).toMatchObject({ sent: 3, queued: 0, blocked: true });
    sink.next = "ok";
    // Five more while blocked, into a queue of three: a4 and a5 are evicted (drop oldest).
    await publish("a4", "a5", "a6", "a7", "a8");
    expect(sink.frames).toHaveLength(3);
    expect(sub.stats()).toMatchObject({ sent: 3, dropped: 2, queued: 3, queuedMax: 3, blocked: true });
    expect(hub.stats().dropped).toBe(2);
    expect(lost).toHaveLength(1); // one warning for the run of losses, not one per article
    const corks = sink.corks;
    sub.drain();
    // The queue goes out under one cork, then the direct path resumes with the same counters.
    expect(sink.corks - corks).toBe(1);
    await publish("a9");
    expect(sink.seen()).toEqual([
      [1, 0, "a1"],
      [2, 0, "a2"],
      [3, 0, "a3"],
      [4, 2, "a6"],
      [5, 2, "a7"],
      [6, 2, "a8"],
      [7, 2, "a9"],
    ]);
    expect(sub.stats()).toMatchObject({ sent: 7, dropped: 2, queued: 0, blocked: false });
    expect(recovered).toEqual([2]);
    await hub.close();
  });

  test("a frame Bun refuses on the direct path is counted lost and does not use a seq", async () => {
    const { hub, sink, sub, publish } = await setup(3);
    await publish("a1");
    sink.next = "refuse";
    await publish("a2");
    expect(sub.stats()).toMatchObject({ sent: 1, dropped: 1, blocked: true });
    sink.next = "ok";
    // Blocked until drain: a3 waits in the queue rather than racing past the refusal.
    await publish("a3");
    expect(sink.seen()).toEqual([[1, 0, "a1"]]);
    sub.drain();
    await publish("a4");
    expect(sink.seen()).toEqual([
      [1, 0, "a1"],
      [2, 1, "a3"],
      [3, 1, "a4"],
    ]);
    expect(hub.stats().dropped).toBe(1);
    await hub.close();
  });

  test("backpressure in the middle of a drain re-queues the rest, in order", async () => {
    const { hub, sink, sub, publish } = await setup(4);
    sink.next = "backpressure";
    await publish("a1");
    sink.next = "ok";
    await publish("a2", "a3", "a4");
    // The drain writes a2, then Bun pushes back on a3: a4 stays queued behind it.
    const send = sink.sendText.bind(sink);
    sink.sendText = (text) => {
      const status = send(text);
      if (text.includes('"title":"a3"')) return -1;
      return status;
    };
    sub.drain();
    expect(sub.stats()).toMatchObject({ sent: 3, queued: 1, blocked: true });
    sink.sendText = send;
    await publish("a5");
    sub.drain();
    expect(sink.seen()).toEqual(inOrder(5));
    expect(sub.stats()).toMatchObject({ sent: 5, dropped: 0, queued: 0, blocked: false });
    await hub.close();
  });

  test("a filter change re-checks what is queued; the direct path only ever sees current matches", async () => {
    const { hub, sink, sub } = await setup(10);
    const post = async (title: string, category: string) => {
      await hub.publish(makeArticle({ title, categories: [category] }));
      await turn();
    };
    sink.next = "backpressure";
    await post("x1", "earnings");
    sink.next = "ok";
    await post("x2", "earnings");
    await post("x3", "markets");
    hub.setFilter(sub, { categories: ["markets"] });
    sub.drain();
    await post("x4", "earnings");
    await post("x5", "markets");
    // x2 was queued under the old filter and no longer matches: skipped, not counted lost.
    expect(sink.seen()).toEqual([
      [1, 0, "x1"],
      [2, 0, "x3"],
      [3, 0, "x5"],
    ]);
    expect(sub.stats().dropped).toBe(0);
    await hub.close();
  });
});
