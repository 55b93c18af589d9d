/**
 * Pub/sub over Redis (cluster profile): every service instance subscribed to a channel
 * gets every message published on it, from any instance.
 *
 * A connection in subscriber mode can run no other command, so subscriptions get their
 * own connection (a duplicate of the publisher's settings). One SUBSCRIBE per channel
 * serves every local listener; the last local unsubscribe sends UNSUBSCRIBE. Redis
 * answers commands on a connection in order, so a SUBSCRIBE sent after an UNSUBSCRIBE
 * for the same channel always wins, and subscribe() resolves only once Redis has
 * confirmed it: a message published after that is delivered. ioredis resubscribes by
 * itself after a reconnect (messages published while disconnected are lost, as pub/sub
 * promises no more; the tenant cache's TTL bounds the cost of a lost invalidation).
 */
import { Redis } from "ioredis";
import type { PubSub } from "../../domain/ports.ts";
import { type PubSubErrorEvent, reportToStderr } from "./shared.ts";

type Listener = (message: string) => void;

export type RedisPubSubOptions = (
  | { url: string; client?: undefined }
  /** A publisher owned by the caller: close() leaves it open (the subscriber is ours). */
  | { client: Redis; url?: undefined }
) & {
  /** Listener and connection errors; default: one JSON line on stderr. */
  onError?: (event: PubSubErrorEvent) => void;
};

interface Channel {
  listeners: Set<Listener>;
  /** The SUBSCRIBE confirmation every listener of this channel waits for. */
  ready: Promise<void>;
}

export class RedisPubSub implements PubSub {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly ownsPub: boolean;
  private readonly onError: (event: PubSubErrorEvent) => void;
  private readonly channels = new Map<string, Channel>();
  private closing: Promise<void> | undefined;

  constructor(opts: RedisPubSubOptions) {
    this.onError = opts.onError ?? reportToStderr;
    if (opts.client) {
      this.pub = opts.client;
      this.ownsPub = false;
    } else {
      // Invalidations sit on the request path: fail after a short retry in an outage.
      this.pub = new Redis(opts.url, { maxRetriesPerRequest: 2 });
      this.pub.on("error", (error: unknown) => this.onError({ phase: "connection", error }));
      this.ownsPub = true;
    }
    this.sub = this.pub.duplicate();
    this.sub.on("error", (error: unknown) => this.onError({ phase: "connection", error }));
    this.sub.on("message", (channel: string, message: string) => this.deliver(channel, message));
  }

  async publish(channel: string, message: string): Promise<void> {
    this.assertOpen();
    await this.pub.publish(channel, message);
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    // Wrapped so the same function subscribed twice counts as two subscriptions.
    const wrapped: Listener = (m) => listener(m);
    let ch = this.channels.get(channel);
    if (!ch) {
      ch = { listeners: new Set(), ready: this.sub.subscribe(channel).then(() => undefined) };
      this.channels.set(channel, ch);
    }
    const entry = ch;
    entry.listeners.add(wrapped);
    try {
      await entry.ready;
    } catch (error) {
      this.drop(channel, entry, wrapped);
      throw error;
    }
    let subscribed = true;
    return async () => {
      if (!subscribed) return;
      subscribed = false;
      await this.drop(channel, entry, wrapped);
    };
  }

  /** Unsubscribes everything and closes the connections this adapter opened. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.channels.clear();
      await quit(this.sub);
      if (this.ownsPub) await quit(this.pub);
    })();
    return this.closing;
  }

  private async drop(channel: string, entry: Channel, listener: Listener): Promise<void> {
    entry.listeners.delete(listener);
    if (entry.listeners.size > 0 || this.channels.get(channel) !== entry) return;
    this.channels.delete(channel);
    if (!this.closing) await this.sub.unsubscribe(channel);
  }

  private deliver(channel: string, message: string): void {
    const ch = this.channels.get(channel);
    if (!ch) return; // unsubscribed locally; Redis has not confirmed yet
    for (const listener of [...ch.listeners]) {
      try {
        listener(message);
      } catch (error) {
        this.onError({ phase: "listener", channel, error });
      }
    }
  }

  private assertOpen(): void {
    if (this.closing) throw new Error("pubsub is closed");
  }
}

/** QUIT politely; a connection that is already down is just disconnected. */
async function quit(client: Redis): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect(); // QUIT fails only when the connection is already gone
  }
}
