import { describe, expect, test } from "bun:test";
import { AppError } from "../domain/errors.ts";
import { Actor, type ActorEvent, type ActorOptions, type Reply } from "./actor.ts";

type Msg =
  | { type: "add"; n: number }
  | { type: "boom" }
  | { type: "slow"; ms: number }
  | { type: "get"; reply: Reply<number> };

interface State {
  total: number;
  generation: number;
}

function counter(over: Partial<ActorOptions<Msg, State>> = {}) {
  const events: ActorEvent<Msg>[] = [];
  const disposed: number[] = [];
  let generation = 0;
  const actor = new Actor<Msg, State>({
    name: "counter",
    mailbox: { maxCount: 100, maxBytes: 10_000, sizeOf: () => 10, policy: "reject" },
    init: () => ({ total: 0, generation: ++generation }),
    handle: async (s, m) => {
      switch (m.type) {
        case "add":
          s.total += m.n;
          return;
        case "boom":
          throw new Error("boom");
        case "slow":
          await Bun.sleep(m.ms);
          return;
        case "get":
          m.reply.resolve(s.total * 1000 + s.generation);
          return;
      }
    },
    dispose: (s) => {
      disposed.push(s.generation);
    },
    supervision: { maxRestarts: 2, windowMs: 10_000, backoffMs: 1, maxBackoffMs: 4 },
    onEvent: (e) => events.push(e),
    ...over,
  });
  const get = () => actor.ask<number>((reply) => ({ type: "get", reply }));
  return { actor, events, disposed, get };
}

describe("Actor", () => {
  test("handles messages one at a time, in order", async () => {
    const seen: number[] = [];
    let running = 0;
    let overlap = false;
    const actor = new Actor<{ type: "work"; id: number }, null>({
      name: "seq",
      mailbox: { maxCount: 100, maxBytes: 1e6, sizeOf: () => 1, policy: "reject" },
      init: () => null,
      handle: async (_s, m) => {
        running++;
        if (running > 1) overlap = true;
        await Bun.sleep(m.id % 3);
        seen.push(m.id);
        running--;
      },
    });
    for (let i = 0; i < 20; i++) expect(actor.post({ type: "work", id: i })).toBe(true);
    expect(actor.idle).toBe(false);
    expect(await actor.stop()).toEqual({ reason: "stopped", mode: "drain" });
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(overlap).toBe(false);
    expect(actor.mailboxStats()).toMatchObject({ accepted: 20, taken: 20 });
  });

  test("ask returns the handler's reply", async () => {
    const { actor, get } = counter();
    actor.post({ type: "add", n: 2 });
    actor.post({ type: "add", n: 3 });
    expect(await get()).toBe(5001);
    await actor.stop();
  });

  test("a failing handler restarts the actor with fresh state; the failing message is not retried", async () => {
    const { actor, events, disposed, get } = counter();
    actor.post({ type: "add", n: 7 });
    actor.post({ type: "boom" });
    actor.post({ type: "add", n: 1 });
    // State was reset by init (generation 2), then only the later message applied.
    expect(await get()).toBe(1002);
    expect(events.map((e) => e.type)).toEqual(["handler_failed", "restarted"]);
    expect(events[0]).toMatchObject({ type: "handler_failed", message: { type: "boom" }, willRestart: true });
    expect(disposed).toEqual([1]);
    await actor.stop();
    expect(disposed).toEqual([1, 2]);
  });

  test("more than maxRestarts failures in the window stop it for good and report why", async () => {
    const { actor, events } = counter();
    for (let i = 0; i < 3; i++) actor.post({ type: "boom" });
    actor.post({ type: "add", n: 1 });
    const exit = await actor.done;
    expect(exit.reason).toBe("crashed");
    if (exit.reason === "crashed") {
      expect(exit.failures).toBe(3);
      expect((exit.error as Error).message).toBe("boom");
    }
    expect(events.filter((e) => e.type === "handler_failed").map((e) => "willRestart" in e && e.willRestart)).toEqual([
      true,
      true,
      false,
    ]);
    expect(events.at(-1)).toEqual({ type: "exited", exit });
    // The leftover message was discarded and later posts are refused.
    expect(actor.mailboxStats().discarded).toBe(1);
    expect(actor.post({ type: "add", n: 1 })).toBe(false);
    await expect(actor.ask<number>((reply) => ({ type: "get", reply }))).rejects.toBeInstanceOf(AppError);
    expect(actor.status).toBe("exited");
  });

  test("failures outside the window do not add up", async () => {
    const { actor, get } = counter({
      supervision: { maxRestarts: 1, windowMs: 30, backoffMs: 0, maxBackoffMs: 0 },
    });
    for (let i = 0; i < 4; i++) {
      actor.post({ type: "boom" });
      await get();
      await Bun.sleep(40);
    }
    expect(actor.status).toBe("running");
    await actor.stop();
  });

  test("init failures count as failures and are retried with backoff", async () => {
    let tries = 0;
    const { actor, events, get } = counter({
      init: () => {
        tries++;
        if (tries < 3) throw new Error("not yet");
        return { total: 0, generation: tries };
      },
    });
    expect(await get()).toBe(3);
    expect(events.filter((e) => e.type === "init_failed")).toHaveLength(2);
    await actor.stop();
  });

  test("stop abandon discards the queue; stop is idempotent and may escalate", async () => {
    const discarded: Msg[] = [];
    const { actor } = counter({
      mailbox: {
        maxCount: 100,
        maxBytes: 10_000,
        sizeOf: () => 10,
        policy: "reject",
        onDiscard: (m) => {
          discarded.push(m);
          if (m.type === "get") m.reply.reject(new AppError("unavailable", "stopped"));
        },
      },
    });
    actor.post({ type: "slow", ms: 20 });
    await Bun.sleep(1); // the loop is now inside "slow"
    actor.post({ type: "add", n: 1 });
    const pending = actor.ask<number>((reply) => ({ type: "get", reply })).catch((e: unknown) => e);
    const drain = actor.stop({ mode: "drain" });
    const abandon = actor.stop({ mode: "abandon" });
    expect(await drain).toEqual({ reason: "stopped", mode: "abandon" });
    expect(await abandon).toEqual({ reason: "stopped", mode: "abandon" });
    expect(discarded.map((m) => m.type)).toEqual(["add", "get"]);
    expect(await pending).toBeInstanceOf(AppError);
    expect(await actor.stop()).toEqual({ reason: "stopped", mode: "abandon" });
  });

  test("stop during a backoff ends without another init", async () => {
    let inits = 0;
    const { actor } = counter({
      init: () => ({ total: 0, generation: ++inits }),
      supervision: { maxRestarts: 5, windowMs: 10_000, backoffMs: 10_000, maxBackoffMs: 10_000 },
    });
    actor.post({ type: "boom" });
    await Bun.sleep(5);
    expect(actor.status).toBe("restarting");
    expect(actor.idle).toBe(false);
    const t0 = performance.now();
    expect(await actor.stop({ mode: "abandon" })).toEqual({ reason: "stopped", mode: "abandon" });
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(inits).toBe(1);
  });

  test("the mailbox 'fail' policy ends the actor with the named reason", async () => {
    const gate = Promise.withResolvers<void>();
    const actor = new Actor<{ type: "wait" } | { type: "noop" }, null>({
      name: "failing-box",
      mailbox: { maxCount: 2, maxBytes: 1e6, sizeOf: () => 1, policy: "fail", failReason: "slow_consumer" },
      init: () => null,
      handle: async (_s, m) => {
        if (m.type === "wait") await gate.promise;
      },
    });
    actor.post({ type: "wait" });
    await Bun.sleep(1);
    expect(actor.post({ type: "noop" })).toBe(true);
    expect(actor.post({ type: "noop" })).toBe(true);
    expect(actor.post({ type: "noop" })).toBe(false);
    gate.resolve();
    expect(await actor.done).toEqual({ reason: "mailbox_failed", code: "slow_consumer" });
    expect(actor.mailboxStats()).toMatchObject({ discarded: 2, rejected: 1 });
  });

  test("rejects bad supervision options by name", () => {
    expect(() => counter({ supervision: { maxRestarts: -1 } })).toThrow(/maxRestarts/);
    expect(() => counter({ supervision: { backoffMs: 10, maxBackoffMs: 1 } })).toThrow(/backoff/);
  });
});
