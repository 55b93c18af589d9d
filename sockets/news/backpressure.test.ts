/**
 * A reader that stops reading: its process is frozen with SIGSTOP, so its socket buffers
 * fill, Bun reports backpressure, and the subscriber's queue of 200 starts dropping the
 * oldest articles. It must stay connected, learn exactly how much it lost (`dropped`,
 * contiguous `seq`), and cost nothing to a healthy reader on the same server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startTestService, type TestService } from "../../test/harness.ts";
import { NewsClient } from "../../test/news-client.ts";
import { makeArticle } from "../../test/news-fixtures.ts";
import { type Served, serve } from "../../test/serve.ts";
import { waitFor } from "../../test/wait.ts";

let svc: TestService;
let http: Served;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  http = serve(svc.service);
  key = await svc.apiKey("slow@example.com", "enterprise");
});
afterAll(async () => {
  await http.stop();
  await svc.close();
});

interface Summary {
  received: number;
  lastSeq: number;
  contiguous: boolean;
  monotonic: boolean;
  lastDropped: number;
  droppedSteps: number;
  open: boolean;
}

/** Reads a child's stdout line by line. */
function lines(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return async () => {
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`child ended; partial output: ${buffer}`);
      buffer += decoder.decode(value, { stream: true });
    }
  };
}

describe("news stream: a stalled reader", () => {
  test("loses the oldest articles, is told how many, stays connected, and slows nobody", async () => {
    const hub = svc.service.newsHub;
    const filter = JSON.stringify({ categories: ["markets"] });
    const url = `${http.wsUrl}/v1/news/stream?apikey=${encodeURIComponent(key)}`;
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "../../test/news-stall-client.ts"), url, filter], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const readLine = lines(child.stdout);
    const fast = await NewsClient.connect(url);
    try {
      await fast.next("connected");
      await fast.setFilter(JSON.parse(filter));
      expect(await readLine()).toBe("ready");
      // The frozen reader is the one losing articles (the healthy one never does: asserted below).
      const stalled = () => hub.subscriberStats().reduce((a, b) => (b.dropped > a.dropped ? b : a));
      // ~8 KB articles, in rounds the healthy reader finishes before the next begins:
      // it must see every article, while the frozen one's buffers fill and its queue overflows.
      const padding = "Markets moved on the day's earnings reports. ".repeat(180);
      let published = 0;
      const round = async () => {
        for (let i = 0; i < 40; i++) {
          await hub.publish(makeArticle({ categories: ["markets"], summary: `${published} ${padding}` }));
          published++;
        }
        await waitFor("the healthy reader to catch up", () => fast.articles().length === published, {
          timeoutMs: 10_000,
        });
      };
      /** Freezes the reader until it has lost `atLeast` in all, thaws it, and reads its report. */
      const stallCycle = async (atLeast: number) => {
        process.kill(child.pid, "SIGSTOP");
        while (stalled().dropped < atLeast && published < 40_000) await round();
        // Its queue filled to the bound and never past it (the kernel may take a little more
        // at any moment, so the queue's length right now says less than its high-water mark).
        expect(stalled().dropped).toBeGreaterThanOrEqual(atLeast);
        expect(stalled().queuedMax).toBe(200);
        // A few more rounds while it is frozen: the healthy reader keeps pace throughout.
        for (let i = 0; i < 3; i++) await round();
        expect(hub.stats().subscribers).toBe(2);
        process.kill(child.pid, "SIGCONT");
        await hub.publish(makeArticle({ categories: ["markets"], title: "END" }));
        published++;
        return JSON.parse(await readLine()) as Summary;
      };

      const first = await stallCycle(300);
      const second = await stallCycle(first.lastDropped + 300);
      for (const summary of [first, second]) {
        expect(summary.open).toBe(true);
        expect(summary.contiguous).toBe(true);
        expect(summary.monotonic).toBe(true);
        expect(summary.lastSeq).toBe(summary.received);
      }
      // `dropped` grew across the two stalls, and nothing vanished: everything published
      // was either received or counted as dropped.
      expect(first.lastDropped).toBeGreaterThanOrEqual(300);
      expect(second.lastDropped).toBeGreaterThanOrEqual(first.lastDropped + 300);
      expect(second.droppedSteps).toBeGreaterThanOrEqual(2);
      expect(second.received + second.lastDropped).toBe(published);
      // The healthy reader: every article, in order, nothing dropped.
      await waitFor("END at the healthy reader", () => fast.articles().length === published);
      const seen = fast.articles();
      expect(seen.every((f, i) => f.seq === i + 1 && f.dropped === 0)).toBe(true);
    } finally {
      process.kill(child.pid, "SIGCONT");
      child.kill();
      await child.exited;
      await fast.close();
    }
  }, 60_000);
});
