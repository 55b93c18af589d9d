/**
 * Mailbox throughput: messages per second through a bounded mailbox and an Actor,
 * against the ceiling of a plain unbounded array queue drained by an async loop.
 * The ratio is the price of the bounds, counters and supervision on the hot path.
 *
 *   node_modules/.bin/bun bench/actors-mailbox.ts        (BENCH_QUICK=1 for a smoke run)
 *
 * Both contenders see the same producer: it posts a batch no larger than the mailbox's
 * bound, then waits until the consumer has handled all of it, so the bounded mailbox is
 * never asked to overflow and the comparison measures queueing, not dropping.
 */
import { Actor } from "../actors/actor.ts";
import { Mailbox } from "../actors/mailbox.ts";
import { compareRounds, emitPair, opsPerSecond, QUICK } from "./runner.ts";

type Msg = { type: "inc"; n: number } | { type: "noop" };

const BENCH = "actors-mailbox";
const MESSAGES = QUICK ? 20_000 : 400_000;
const BATCH = 1024;
const MAILBOX = { maxCount: BATCH, maxBytes: BATCH * 32, sizeOf: () => 32, policy: "reject" as const };

/** A consumer both contenders implement: post, and a promise for "all posted handled". */
interface Consumer {
  post(m: Msg): boolean;
  /** Resolves once `count` more messages have been handled. */
  handled(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Shared bookkeeping so both contenders pay the same per-message accounting. */
class Tally {
  total = 0;
  private target = 0;
  private wake: (() => void) | undefined;

  handle(m: Msg): void {
    if (m.type === "inc") this.total += m.n;
    if (--this.target === 0) {
      const w = this.wake;
      this.wake = undefined;
      w?.();
    }
  }

  expect(count: number): Promise<void> {
    this.target += count;
    if (this.target === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
}

function actorConsumer(async: boolean): Consumer {
  const tally = new Tally();
  const actor = new Actor<Msg, Tally>({
    name: "bench",
    mailbox: MAILBOX,
    init: () => tally,
    handle: async ? async (t, m) => t.handle(m) : (t, m) => t.handle(m),
  });
  return {
    post: (m) => actor.post(m),
    handled: (n) => tally.expect(n),
    close: async () => {
      await actor.stop();
    },
  };
}

/** The ceiling: an unbounded array, an index for the head, one async loop. */
function arrayQueueConsumer(async: boolean): Consumer {
  const tally = new Tally();
  let queue: Msg[] = [];
  let head = 0;
  let wake: (() => void) | undefined;
  let open = true;
  const loop = (async () => {
    while (open) {
      while (head < queue.length) {
        const m = queue[head++] as Msg;
        if (async) await Promise.resolve(tally.handle(m));
        else tally.handle(m);
      }
      queue = [];
      head = 0;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  })();
  return {
    post: (m) => {
      queue.push(m);
      const w = wake;
      wake = undefined;
      w?.();
      return true;
    },
    handled: (n) => tally.expect(n),
    close: async () => {
      open = false;
      wake?.();
      await loop;
    },
  };
}

async function pump(c: Consumer): Promise<void> {
  for (let sent = 0; sent < MESSAGES; ) {
    const n = Math.min(BATCH, MESSAGES - sent);
    const done = c.handled(n);
    for (let i = 0; i < n; i++) {
      if (!c.post({ type: "inc", n: 1 })) throw new Error("bench: mailbox refused a message under its bound");
    }
    await done;
    sent += n;
  }
}

async function throughput(label: string, async: boolean): Promise<void> {
  const actor = actorConsumer(async);
  const ceiling = arrayQueueConsumer(async);
  const r = await compareRounds(
    () => pump(actor),
    () => pump(ceiling),
  );
  await actor.close();
  await ceiling.close();
  emitPair(
    { bench: `${BENCH}/actor-${label}`, value: opsPerSecond(MESSAGES, r.a) },
    { bench: `${BENCH}/array-queue-${label}`, value: opsPerSecond(MESSAGES, r.b) },
    "throughput",
    "msg/s",
  );
}

/** The mailbox alone (offer + poll, no actor loop) against array push + indexed read. */
async function rawMailbox(): Promise<void> {
  const mb = new Mailbox<Msg>(MAILBOX);
  let sink = 0;
  const viaMailbox = () => {
    for (let sent = 0; sent < MESSAGES; sent += BATCH) {
      for (let i = 0; i < BATCH; i++) mb.offer({ type: "inc", n: i });
      for (let t = mb.poll(); t && !t.done; t = mb.poll()) if (t.value.type === "inc") sink += t.value.n;
    }
  };
  const viaArray = () => {
    for (let sent = 0; sent < MESSAGES; sent += BATCH) {
      const q: Msg[] = [];
      for (let i = 0; i < BATCH; i++) q.push({ type: "inc", n: i });
      for (let h = 0; h < q.length; h++) {
        const m = q[h] as Msg;
        if (m.type === "inc") sink += m.n;
      }
    }
  };
  const r = await compareRounds(viaMailbox, viaArray);
  if (sink === -1) process.stderr.write("unreachable\n"); // keeps the work observable
  emitPair(
    { bench: `${BENCH}/mailbox-offer-poll`, value: opsPerSecond(MESSAGES, r.a) },
    { bench: `${BENCH}/array-push-read`, value: opsPerSecond(MESSAGES, r.b) },
    "throughput",
    "msg/s",
  );
}

await rawMailbox();
await throughput("sync-handler", false);
await throughput("async-handler", true);
