/**
 * Contract suite for PubSub: runs unchanged against every adapter. Each test gets two
 * instances on one medium (a shared memory bus, or one Redis server), as two service
 * processes would have. Delivery may be asynchronous, so receipt is awaited with
 * waitFor; absence is proven with a sentinel published afterwards on the same path
 * (both adapters keep one publisher's order).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { PubSub } from "../../domain/ports.ts";
import { uniqueName } from "../engines.ts";
import { waitFor } from "../wait.ts";

export interface PubSubHarness {
  a: PubSub;
  b: PubSub;
  cleanup(): Promise<void>;
}

/** `onListenerError` must receive errors thrown by listeners (the adapters' onError). */
export type MakePubSub = (onListenerError: (channel: string, error: unknown) => void) => Promise<PubSubHarness>;

function inbox() {
  const got: string[] = [];
  return { got, listener: (m: string) => void got.push(m) };
}

export function runPubSubContract(name: string, make: MakePubSub): void {
  describe(`PubSub contract: ${name}`, () => {
    let h: PubSubHarness;
    let listenerErrors: { channel: string; error: unknown }[];
    const ch = () => uniqueName("cairn_ps");

    /** Proves `box` received nothing more from `from` on ch, by a later sentinel on `via`. */
    async function settle(from: PubSub, via: PubSub): Promise<void> {
      const sentinel = ch();
      const s = inbox();
      const off = await via.subscribe(sentinel, s.listener);
      await from.publish(sentinel, "sentinel");
      await waitFor("the sentinel", () => s.got.length === 1);
      await off();
    }

    beforeEach(async () => {
      listenerErrors = [];
      h = await make((channel, error) => listenerErrors.push({ channel, error }));
    });
    afterEach(async () => {
      await h.a.close();
      await h.b.close();
      await h.cleanup();
    });

    test("a message published after subscribe resolves reaches every instance, the publisher's too", async () => {
      const c = ch();
      const onA = inbox();
      const onB = inbox();
      await h.a.subscribe(c, onA.listener);
      await h.b.subscribe(c, onB.listener);
      await h.a.publish(c, "hello");
      await waitFor("delivery to both", () => onA.got.length === 1 && onB.got.length === 1);
      expect(onA.got).toEqual(["hello"]);
      expect(onB.got).toEqual(["hello"]);
    });

    test("one publisher's messages arrive in order", async () => {
      const c = ch();
      const box = inbox();
      await h.b.subscribe(c, box.listener);
      const sent = Array.from({ length: 200 }, (_, i) => `m${i}`);
      for (const m of sent) await h.a.publish(c, m);
      await waitFor("200 messages", () => box.got.length === sent.length);
      expect(box.got).toEqual(sent);
    });

    test("channels are isolated", async () => {
      const [c1, c2] = [ch(), ch()];
      const one = inbox();
      const two = inbox();
      await h.b.subscribe(c1, one.listener);
      await h.b.subscribe(c2, two.listener);
      await h.a.publish(c1, "for one");
      await settle(h.a, h.b);
      await waitFor("delivery on c1", () => one.got.length === 1);
      expect(two.got).toEqual([]);
    });

    test("payloads round-trip unchanged", async () => {
      const c = ch();
      const box = inbox();
      await h.b.subscribe(c, box.listener);
      const payloads = [
        "",
        "plain",
        JSON.stringify({ tenant_id: "t-1", n: [1, 2] }),
        "ünïcødé ✓ 🚀",
        "x".repeat(65_536),
      ];
      for (const p of payloads) await h.a.publish(c, p);
      await waitFor("all payloads", () => box.got.length === payloads.length);
      expect(box.got).toEqual(payloads);
    });

    test("several listeners on a channel each get a copy; unsubscribing one leaves the others", async () => {
      const c = ch();
      const [x, y, z] = [inbox(), inbox(), inbox()];
      const offX = await h.b.subscribe(c, x.listener);
      await h.b.subscribe(c, y.listener);
      await h.b.subscribe(c, z.listener);
      await h.a.publish(c, "1");
      await waitFor("three copies", () => x.got.length + y.got.length + z.got.length === 3);
      await offX();
      await h.a.publish(c, "2");
      await settle(h.a, h.b);
      await waitFor("y and z", () => y.got.length === 2 && z.got.length === 2);
      expect(x.got).toEqual(["1"]);
    });

    test("the same function subscribed twice is two subscriptions", async () => {
      const c = ch();
      const box = inbox();
      const off1 = await h.b.subscribe(c, box.listener);
      await h.b.subscribe(c, box.listener);
      await h.a.publish(c, "m");
      await waitFor("two copies", () => box.got.length === 2);
      await off1();
      await h.a.publish(c, "n");
      await settle(h.a, h.b);
      expect(box.got).toEqual(["m", "m", "n"]);
    });

    test("unsubscribe stops delivery and is idempotent; resubscribing works", async () => {
      const c = ch();
      const box = inbox();
      const off = await h.b.subscribe(c, box.listener);
      await off();
      await off();
      await h.a.publish(c, "missed");
      await settle(h.a, h.b);
      expect(box.got).toEqual([]);
      await h.b.subscribe(c, box.listener);
      await h.a.publish(c, "seen");
      await waitFor("delivery after resubscribe", () => box.got.length === 1);
      expect(box.got).toEqual(["seen"]);
    });

    test("subscribe/unsubscribe churn on one channel ends subscribed exactly as asked", async () => {
      const c = ch();
      const box = inbox();
      const offs = await Promise.all(Array.from({ length: 20 }, () => h.b.subscribe(c, box.listener)));
      await Promise.all(offs.slice(0, 19).map((off) => off()));
      for (let i = 0; i < 5; i++) {
        const off = await h.b.subscribe(c, box.listener);
        await off();
      }
      await h.a.publish(c, "once");
      await settle(h.a, h.b);
      await waitFor("one copy", () => box.got.length === 1);
      expect(box.got).toEqual(["once"]);
    });

    test("a throwing listener is reported and does not stop the others", async () => {
      const c = ch();
      const box = inbox();
      await h.b.subscribe(c, () => {
        throw new Error("listener bug");
      });
      await h.b.subscribe(c, box.listener);
      await h.a.publish(c, "m");
      await waitFor("delivery to the healthy listener", () => box.got.length === 1);
      await waitFor("the error report", () => listenerErrors.length === 1);
      expect(listenerErrors[0]?.channel).toBe(c);
      expect(String(listenerErrors[0]?.error)).toContain("listener bug");
    });

    test("close ends this instance's subscriptions only; a closed instance refuses work; idempotent", async () => {
      const c = ch();
      const onA = inbox();
      const onB = inbox();
      await h.a.subscribe(c, onA.listener);
      await h.b.subscribe(c, onB.listener);
      await h.a.close();
      await h.a.close();
      await h.b.publish(c, "after a closed");
      await waitFor("b still receives", () => onB.got.length === 1);
      await settle(h.b, h.b);
      expect(onA.got).toEqual([]);
      await expect(h.a.publish(c, "x")).rejects.toThrow();
      await expect(h.a.subscribe(c, onA.listener)).rejects.toThrow();
    });
  });
}
