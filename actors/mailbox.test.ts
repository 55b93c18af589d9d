import { describe, expect, test } from "bun:test";
import { fuzzSeed, prng } from "../test/prng.ts";
import { type DiscardReason, Mailbox, type MailboxOptions, OVERFLOW_POLICIES, type OverflowEvent } from "./mailbox.ts";

type Msg = { id: number; body: string };
const msg = (id: number, bytes = 10): Msg => ({ id, body: "x".repeat(bytes) });

function box(over: Partial<MailboxOptions<Msg>> = {}) {
  const events: OverflowEvent[] = [];
  const discarded: { id: number; reason: DiscardReason }[] = [];
  const mb = new Mailbox<Msg>({
    maxCount: 100,
    maxBytes: 1_000,
    sizeOf: (m) => m.body.length,
    policy: "reject",
    onOverflow: (e) => events.push(e),
    onDiscard: (m, reason) => discarded.push({ id: m.id, reason }),
    ...over,
  });
  return { mb, events, discarded };
}

function drain(mb: Mailbox<Msg>): number[] {
  const ids: number[] = [];
  for (let t = mb.poll(); t && !t.done; t = mb.poll()) ids.push(t.value.id);
  return ids;
}

describe("Mailbox", () => {
  test("rejects bad options by name", () => {
    expect(() => box({ maxCount: 0 })).toThrow(/maxCount/);
    expect(() => box({ maxCount: 1.5 })).toThrow(/maxCount/);
    expect(() => box({ maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => box({ policy: "explode" as MailboxOptions<Msg>["policy"] })).toThrow(/policy/);
  });

  test("FIFO; length and bytes follow offers and takes", async () => {
    const { mb } = box();
    for (let i = 0; i < 5; i++) expect(mb.offer(msg(i, 7))).toBe(true);
    expect(mb.length).toBe(5);
    expect(mb.bytes).toBe(35);
    const first = await mb.take();
    expect(first).toEqual({ done: false, value: msg(0, 7) });
    expect(drain(mb)).toEqual([1, 2, 3, 4]);
    expect(mb.bytes).toBe(0);
    expect(mb.poll()).toBeUndefined();
    expect(mb.stats()).toMatchObject({ accepted: 5, taken: 5, dropped: 0, rejected: 0, highWater: 5 });
  });

  test("take waits for the next offer; waiters are served in order", async () => {
    const { mb } = box();
    const a = mb.take();
    const b = mb.take();
    mb.offer(msg(1));
    mb.offer(msg(2));
    expect(await a).toEqual({ done: false, value: msg(1) });
    expect(await b).toEqual({ done: false, value: msg(2) });
    expect(mb.length).toBe(0);
  });

  test("drop_oldest evicts by count and counts the drops", () => {
    const { mb, events, discarded } = box({ policy: "drop_oldest", maxCount: 3 });
    for (let i = 0; i < 5; i++) expect(mb.offer(msg(i))).toBe(true);
    expect(drain(mb)).toEqual([2, 3, 4]);
    expect(mb.stats()).toMatchObject({ accepted: 5, dropped: 2 });
    expect(discarded).toEqual([
      { id: 0, reason: "evicted" },
      { id: 1, reason: "evicted" },
    ]);
    expect(events).toEqual([
      { policy: "drop_oldest", evicted: 1, refusedNew: false },
      { policy: "drop_oldest", evicted: 1, refusedNew: false },
    ]);
  });

  test("drop_oldest evicts by bytes until the new message fits", () => {
    const { mb, events } = box({ policy: "drop_oldest", maxBytes: 100 });
    mb.offer(msg(1, 40));
    mb.offer(msg(2, 40));
    mb.offer(msg(3, 10)); // 90 bytes held
    expect(mb.offer(msg(4, 60))).toBe(true); // needs 50 more: evict 1 (40) then 2 (40)
    expect(events.at(-1)).toEqual({ policy: "drop_oldest", evicted: 2, refusedNew: false });
    expect(mb.bytes).toBe(70);
    expect(drain(mb)).toEqual([3, 4]);
  });

  test("drop_oldest refuses a message larger than the whole budget without evicting", () => {
    const { mb, events } = box({ policy: "drop_oldest", maxBytes: 100 });
    mb.offer(msg(1, 50));
    expect(mb.offer(msg(2, 101))).toBe(false);
    expect(events).toEqual([{ policy: "drop_oldest", evicted: 0, refusedNew: true }]);
    expect(mb.stats()).toMatchObject({ accepted: 1, dropped: 1, length: 1 });
  });

  test("drop_newest refuses the new one and counts it as dropped", () => {
    const { mb, events } = box({ policy: "drop_newest", maxCount: 2, maxBytes: 25 });
    expect(mb.offer(msg(1))).toBe(true);
    expect(mb.offer(msg(2))).toBe(true);
    expect(mb.offer(msg(3))).toBe(false); // count
    drain(mb);
    expect(mb.offer(msg(4, 20))).toBe(true);
    expect(mb.offer(msg(5, 6))).toBe(false); // bytes: 26 > 25
    expect(drain(mb)).toEqual([4]);
    expect(mb.stats()).toMatchObject({ accepted: 3, dropped: 2, rejected: 0 });
    expect(events).toEqual([
      { policy: "drop_newest", size: 10 },
      { policy: "drop_newest", size: 6 },
    ]);
  });

  test("reject refuses the new one and counts it as rejected", () => {
    const { mb } = box({ policy: "reject", maxCount: 10, maxBytes: 30 });
    expect(mb.offer(msg(1, 30))).toBe(true);
    expect(mb.offer(msg(2, 0))).toBe(true); // zero-size still counts against maxCount only
    expect(mb.offer(msg(3, 1))).toBe(false);
    expect(mb.stats()).toMatchObject({ accepted: 2, rejected: 1, dropped: 0 });
  });

  test("fail closes with the named reason; queued messages stay takeable, waiters see the end", async () => {
    const { mb, events } = box({ policy: "fail", maxCount: 2, failReason: "slow_consumer" });
    mb.offer(msg(1));
    mb.offer(msg(2));
    expect(mb.offer(msg(3))).toBe(false);
    expect(events).toEqual([{ policy: "fail", reason: "slow_consumer" }]);
    expect(mb.closed).toBe(true);
    expect(mb.closeReason).toBe("slow_consumer");
    expect(mb.offer(msg(4))).toBe(false);
    expect(drain(mb)).toEqual([1, 2]);
    expect(await mb.take()).toEqual({ done: true, reason: "slow_consumer" });
    expect(mb.stats()).toMatchObject({ accepted: 2, rejected: 2 });
  });

  test("close: pending takers end; discard hands queued messages to onDiscard; idempotent", async () => {
    const { mb, discarded } = box();
    const waiting = mb.take();
    mb.close("bye");
    expect(await waiting).toEqual({ done: true, reason: "bye" });

    const second = box();
    second.mb.offer(msg(1));
    second.mb.offer(msg(2));
    second.mb.close("stopped");
    second.mb.close("other", { discard: true }); // escalates; the first reason stays
    expect(second.mb.closeReason).toBe("stopped");
    expect(second.discarded).toEqual([
      { id: 1, reason: "closed" },
      { id: 2, reason: "closed" },
    ]);
    expect(second.mb.stats()).toMatchObject({ discarded: 2, length: 0, bytes: 0 });
    expect(second.mb.poll()).toEqual({ done: true, reason: "stopped" });
    expect(discarded).toEqual([]);
  });

  test("a bad size is a programming error, not a silent zero", () => {
    const { mb } = box({ sizeOf: () => Number.NaN });
    expect(() => mb.offer(msg(1))).toThrow(/sizeOf/);
  });

  test("stays bounded and ordered across many compactions", () => {
    const { mb } = box({ policy: "drop_oldest", maxCount: 3000, maxBytes: Number.POSITIVE_INFINITY });
    let next = 0;
    const seen: number[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 2500; i++) mb.offer(msg(next++, 1));
      for (let i = 0; i < 2000; i++) {
        const t = mb.poll();
        if (t && !t.done) seen.push(t.value.id);
      }
      expect(mb.length).toBeLessThanOrEqual(3000);
    }
    seen.push(...drain(mb));
    expect(seen.every((id, i) => i === 0 || id > (seen[i - 1] ?? -1))).toBe(true);
    const s = mb.stats();
    expect(s.accepted).toBe(next);
    expect(s.taken + s.dropped).toBe(next);
  });

  test("seeded fuzz: every policy matches a naive model under count and byte limits", () => {
    const base = fuzzSeed("mailbox policies");
    for (let run = 0; run < 200; run++) {
      const seed = (base + run) >>> 0;
      const r = prng(seed);
      const policy = r.pick(OVERFLOW_POLICIES);
      const maxCount = 1 + r.int(8);
      const maxBytes = 5 + r.int(60);
      const { mb } = box({ policy, maxCount, maxBytes });
      // The model: a plain array and the policy rules written out longhand.
      const model: Msg[] = [];
      let closed = false;
      const counts = { accepted: 0, taken: 0, dropped: 0, rejected: 0 };
      const bytes = () => model.reduce((n, m) => n + m.body.length, 0);
      const fits = (size: number) => model.length + 1 <= maxCount && bytes() + size <= maxBytes;
      for (let step = 0; step < 100; step++) {
        if (r.bool(0.6)) {
          const m = msg(step, r.int(maxBytes + 5));
          const size = m.body.length;
          let expected: boolean;
          if (closed) expected = false;
          else if (fits(size)) expected = true;
          else if (policy === "drop_oldest" && size <= maxBytes) {
            while (!fits(size)) {
              model.shift();
              counts.dropped++;
            }
            expected = true;
          } else {
            if (policy === "fail") closed = true;
            expected = false;
          }
          if (expected) {
            model.push(m);
            counts.accepted++;
          } else if (!closed && (policy === "drop_oldest" || policy === "drop_newest")) counts.dropped++;
          else counts.rejected++;
          const got = mb.offer(m);
          if (got !== expected) throw new Error(`seed=${seed} step=${step}: offer gave ${got}, model ${expected}`);
        } else {
          const t = mb.poll();
          const want = model.shift();
          if (want) counts.taken++;
          const gotId = t && !t.done ? t.value.id : undefined;
          if (gotId !== want?.id) throw new Error(`seed=${seed} step=${step}: poll gave ${gotId}, model ${want?.id}`);
        }
        if (mb.length !== model.length || mb.bytes !== bytes() || mb.length > maxCount || mb.bytes > maxBytes) {
          throw new Error(`seed=${seed} step=${step}: length/bytes diverged from the model`);
        }
      }
      expect(mb.stats()).toMatchObject({ ...counts, length: model.length });
    }
  });
});
