/**
 * Fixed-window counters on Redis, shared by every service instance (cluster profile).
 *
 * One Lua script increments a batch of keys and sets each key's expiry only when it has
 * none (PEXPIRE ... NX, Redis 7), so a window's expiry is fixed when the window is created
 * and later increments never stretch it. A script runs atomically on the server and costs
 * one round trip however many keys it touches. It is sent by SHA and re-sent in full only
 * after a NOSCRIPT reply (a restarted or flushed server).
 *
 * All keys of one call must live on one node; on a Redis Cluster, callers would need hash
 * tags. The rate limiter passes one key per call, so it is unaffected.
 */
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import type { CounterStore } from "../../domain/ports.ts";
import { assertTtl } from "./ttl.ts";

const INCR_SCRIPT = `
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('INCR', KEYS[i])
  redis.call('PEXPIRE', KEYS[i], ARGV[i], 'NX')
end
return out
`;
const INCR_SHA = createHash("sha1").update(INCR_SCRIPT).digest("hex");

export type RedisCounterStoreOptions = (
  | { url: string; client?: undefined }
  /** A client owned by the caller: close() leaves it open. */
  | { client: Redis; url?: undefined }
) & {
  /** Prepended to every key so several deployments or test runs can share a server. */
  prefix?: string;
};

export const DEFAULT_COUNTER_PREFIX = "cairn:";

export class RedisCounterStore implements CounterStore {
  readonly prefix: string;
  private readonly client: Redis;
  private readonly ownsClient: boolean;
  private closed = false;

  constructor(opts: RedisCounterStoreOptions) {
    this.prefix = opts.prefix ?? DEFAULT_COUNTER_PREFIX;
    if (opts.client) {
      this.client = opts.client;
      this.ownsClient = false;
    } else {
      // Counters sit on the request path: during an outage a request should fail after a
      // short retry rather than wait through ioredis's default twenty reconnect attempts.
      this.client = new Redis(opts.url, { maxRetriesPerRequest: 2 });
      this.ownsClient = true;
    }
  }

  async incr(keys: { key: string; ttlMs: number }[]): Promise<number[]> {
    if (keys.length === 0) return [];
    for (const k of keys) assertTtl(k.ttlMs);
    const args: (string | number)[] = [
      ...keys.map((k) => this.prefix + k.key),
      // PEXPIRE takes whole milliseconds; rounding up never ends a window early.
      ...keys.map((k) => Math.ceil(k.ttlMs)),
    ];
    let reply: unknown;
    try {
      reply = await this.client.evalsha(INCR_SHA, keys.length, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
      reply = await this.client.eval(INCR_SCRIPT, keys.length, ...args);
    }
    return parseCounts(reply, keys.length);
  }

  async get(key: string): Promise<number> {
    const v = await this.client.get(this.prefix + key);
    return v === null ? 0 : Number(v);
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.quit();
  }
}

function parseCounts(reply: unknown, expected: number): number[] {
  if (Array.isArray(reply) && reply.length === expected && reply.every((v) => typeof v === "number")) {
    return reply as number[];
  }
  throw new Error(`RedisCounterStore: unexpected script reply ${JSON.stringify(reply)}`);
}
