import { MemoryCounterStore, RedisCounterStore } from "../../adapters/counters/index.ts";
import { engineUrl, uniqueName } from "../engines.ts";
import { deleteRedisPrefix } from "../redis.ts";
import { runCounterContract } from "./counters.contract.ts";

runCounterContract("memory", async () => {
  let now = 1_700_000_000_000;
  const store = new MemoryCounterStore({ now: () => now });
  return {
    store,
    elapse: async (ms) => {
      now += ms;
    },
    cleanup: async () => {},
  };
});

const redisUrl = engineUrl("redis");
if (redisUrl) {
  runCounterContract("redis", async () => {
    const prefix = `${uniqueName("cairn_t")}:`;
    const store = new RedisCounterStore({ url: redisUrl, prefix });
    return {
      store,
      elapse: (ms) => Bun.sleep(ms),
      cleanup: () => deleteRedisPrefix(redisUrl, prefix),
    };
  });
}
