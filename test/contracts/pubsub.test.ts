import { MemoryBus, MemoryPubSub, RedisPubSub } from "../../adapters/pubsub/index.ts";
import { engineUrl } from "../engines.ts";
import { runPubSubContract } from "./pubsub.contract.ts";

runPubSubContract("memory (two instances on one shared bus)", async (onListenerError) => {
  const bus = new MemoryBus();
  const onError = (e: { phase: string; channel?: string; error: unknown }) => {
    if (e.phase === "listener") onListenerError(e.channel ?? "", e.error);
  };
  return {
    a: new MemoryPubSub(bus, { onError }),
    b: new MemoryPubSub(bus, { onError }),
    cleanup: async () => {},
  };
});

const redisUrl = engineUrl("redis");
if (redisUrl) {
  // Channel names are unique per test (uniqueName), so suites sharing the server never cross.
  runPubSubContract("redis (two instances, separate connections)", async (onListenerError) => {
    const onError = (e: { phase: string; channel?: string; error: unknown }) => {
      if (e.phase === "listener") onListenerError(e.channel ?? "", e.error);
    };
    return {
      a: new RedisPubSub({ url: redisUrl, onError }),
      b: new RedisPubSub({ url: redisUrl, onError }),
      cleanup: async () => {},
    };
  });
}
