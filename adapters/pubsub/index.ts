export { MemoryBus, MemoryPubSub, type MemoryPubSubOptions } from "./memory.ts";
export { RedisPubSub, type RedisPubSubOptions } from "./redis.ts";
export { type PubSubErrorEvent, reportToStderr } from "./shared.ts";
