/**
 * In-process pub/sub (embedded profile). Channels live on a MemoryBus; each MemoryPubSub
 * is one service instance's handle on it. Two instances in one process (tests, or a
 * single-process cluster simulation) share a bus by passing the same MemoryBus, exactly
 * as two processes would share one Redis.
 *
 * Delivery is synchronous inside publish(): when publish resolves, every listener on the
 * bus has run. A throwing listener is reported and does not stop delivery to the others.
 */
import type { PubSub } from "../../domain/ports.ts";
import { type PubSubErrorEvent, reportToStderr } from "./shared.ts";

type Listener = (message: string) => void;

/** The shared medium: channel -> listeners of every instance attached to it. */
export class MemoryBus {
  private readonly channels = new Map<string, Set<Listener>>();

  add(channel: string, listener: Listener): void {
    let set = this.channels.get(channel);
    if (!set) {
      set = new Set();
      this.channels.set(channel, set);
    }
    set.add(listener);
  }

  remove(channel: string, listener: Listener): void {
    const set = this.channels.get(channel);
    if (!set) return;
    set.delete(listener);
    if (set.size === 0) this.channels.delete(channel);
  }

  /** Snapshot of a channel's listeners, so (un)subscribing during delivery is safe. */
  listeners(channel: string): Listener[] {
    const set = this.channels.get(channel);
    return set ? [...set] : [];
  }

  /** Channels with at least one listener (for tests and diagnostics). */
  get channelCount(): number {
    return this.channels.size;
  }
}

export interface MemoryPubSubOptions {
  /** Listener errors go here (to be logged); default: one JSON line on stderr. */
  onError?: (event: PubSubErrorEvent) => void;
}

export class MemoryPubSub implements PubSub {
  readonly bus: MemoryBus;
  private readonly mine = new Set<{ channel: string; listener: Listener }>();
  private readonly onError: (event: PubSubErrorEvent) => void;
  private closed = false;

  /** Pass the same bus to several instances to connect them; default: a private bus. */
  constructor(bus?: MemoryBus, opts: MemoryPubSubOptions = {}) {
    this.bus = bus ?? new MemoryBus();
    this.onError = opts.onError ?? reportToStderr;
  }

  async publish(channel: string, message: string): Promise<void> {
    this.assertOpen();
    for (const listener of this.bus.listeners(channel)) {
      try {
        listener(message);
      } catch (error) {
        this.onError({ phase: "listener", channel, error });
      }
    }
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    // Wrap, so the same function subscribed twice is two subscriptions, as on Redis.
    const wrapped: Listener = (m) => listener(m);
    const sub = { channel, listener: wrapped };
    this.bus.add(channel, wrapped);
    this.mine.add(sub);
    return async () => {
      if (!this.mine.delete(sub)) return;
      this.bus.remove(channel, wrapped);
    };
  }

  /** Drops this instance's subscriptions (not the bus: other instances may still use it). */
  async close(): Promise<void> {
    this.closed = true;
    for (const sub of this.mine) this.bus.remove(sub.channel, sub.listener);
    this.mine.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("pubsub is closed");
  }
}
