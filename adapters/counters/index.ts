export { DEFAULT_MAX_COUNTER_KEYS, MemoryCounterStore, type MemoryCounterStoreOptions } from "./memory.ts";
export { DEFAULT_COUNTER_PREFIX, RedisCounterStore, type RedisCounterStoreOptions } from "./redis.ts";
