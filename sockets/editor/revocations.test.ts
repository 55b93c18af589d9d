/**
 * The access-change bus between instances: each instance hears every change exactly once
 * (its own at once, the others' through the channel), malformed messages are ignored, and
 * a bus that fails to publish never fails the change that was already stored.
 */
import { describe, expect, test } from "bun:test";
import { MemoryBus, MemoryPubSub } from "../../adapters/pubsub/index.ts";
import type { AccessChange } from "../../domain/editor/ports.ts";
import type { PubSub } from "../../domain/ports.ts";
import { CollabRevocations } from "./revocations.ts";

function instance(pubsub: PubSub | null, id: string, warnings: string[] = []) {
  const bus = new CollabRevocations({
    pubsub,
    channel: "test:collab-access",
    instanceId: id,
    logger: { warn: (_o, msg) => warnings.push(msg) },
  });
  const heard: AccessChange[] = [];
  bus.onChange((c) => heard.push(c));
  return { bus, heard, warnings };
}

const change: AccessChange = { tenantId: "t1", docId: "d1", userId: 7 };

describe("CollabRevocations", () => {
  test("a change reaches this instance and every other one once", async () => {
    const shared = new MemoryBus();
    const a = instance(new MemoryPubSub(shared), "a");
    const b = instance(new MemoryPubSub(shared), "b");
    await a.bus.start();
    await b.bus.start();
    await a.bus.publish(change);
    await b.bus.publish({ tenantId: "t1", docId: null, userId: null });
    expect(a.heard).toEqual([change, { tenantId: "t1", docId: null, userId: null }]);
    expect(b.heard).toEqual(a.heard);
  });

  test("malformed messages on the channel are ignored; after close nothing is heard", async () => {
    const shared = new MemoryBus();
    const raw = new MemoryPubSub(shared);
    const a = instance(new MemoryPubSub(shared), "a");
    await a.bus.start();
    for (const m of ["not json", "{}", JSON.stringify({ i: "x", tenant_id: "t1", doc_id: 5, user_id: null })]) {
      await raw.publish("test:collab-access", m);
    }
    expect(a.heard).toEqual([]);
    await raw.publish("test:collab-access", JSON.stringify({ i: "x", tenant_id: "t1", doc_id: "d", user_id: 3 }));
    expect(a.heard).toEqual([{ tenantId: "t1", docId: "d", userId: 3 }]);
    await a.bus.close();
    await raw.publish("test:collab-access", JSON.stringify({ i: "x", tenant_id: "t1", doc_id: "d", user_id: 4 }));
    expect(a.heard).toHaveLength(1);
  });

  test("without a bus the change stays local; a failing bus is logged, not thrown, and local listeners still hear it", async () => {
    const local = instance(null, "a");
    await local.bus.start();
    await local.bus.publish(change);
    expect(local.heard).toEqual([change]);

    const broken: PubSub = {
      publish: async () => {
        throw new Error("bus down");
      },
      subscribe: async () => async () => {},
      close: async () => {},
    };
    const b = instance(broken, "b");
    await b.bus.start();
    await b.bus.publish(change);
    expect(b.heard).toEqual([change]);
    expect(b.warnings).toEqual(["could not tell other instances about an editor access change"]);
  });
});
