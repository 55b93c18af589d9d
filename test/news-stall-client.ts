/**
 * A news-stream client run as its own process, so a test can freeze it (SIGSTOP): a
 * reader that stops reading entirely, the way a stalled phone or a paused debugger does.
 *
 *   bun test/news-stall-client.ts <ws url> <filter json>
 *
 * Prints "ready" once its filter is applied, then, when an article titled END arrives,
 * one JSON line summarising what it saw (seq contiguity and the dropped counts).
 */
import type { NewsFrame } from "./news-client.ts";

const [url, filter] = process.argv.slice(2);
if (!url || !filter) throw new Error("usage: news-stall-client.ts <ws url> <filter json>");

let received = 0;
let lastSeq = 0;
let contiguous = true;
let monotonic = true;
let lastDropped = 0;
const droppedSteps: number[] = [];

const ws = new WebSocket(url);
ws.addEventListener("open", () => ws.send(filter));
ws.addEventListener("message", (e) => {
  const frame = JSON.parse(String(e.data)) as NewsFrame;
  if (frame.type === "filter_applied") process.stdout.write("ready\n");
  if (frame.type !== "article") return;
  received++;
  if (frame.seq !== lastSeq + 1) contiguous = false;
  if (frame.dropped < lastDropped) monotonic = false;
  if (frame.dropped > lastDropped) droppedSteps.push(frame.dropped);
  lastSeq = frame.seq;
  lastDropped = frame.dropped;
  if (frame.data.title === "END") {
    const open = ws.readyState === WebSocket.OPEN;
    process.stdout.write(
      `${JSON.stringify({ received, lastSeq, contiguous, monotonic, lastDropped, droppedSteps: droppedSteps.length, open })}\n`,
    );
  }
});
ws.addEventListener("close", (e) => {
  process.stdout.write(`${JSON.stringify({ closed: e.code })}\n`);
  process.exit(0);
});
