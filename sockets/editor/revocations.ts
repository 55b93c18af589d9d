/**
 * Access changes of editor documents (issue 13), told to every instance: the REST sharing
 * routes publish one after the change is stored; each instance's collaboration sockets
 * re-check the connections it concerns. Listeners of this instance hear it at once (no
 * round trip through Redis); the other instances through the PubSub channel, which carries
 * the publishing instance's id so it does not act twice on its own message.
 *
 * Best effort across instances, like the rooms' fan-out: a message lost by the bus leaves
 * the remote connection as it was until its token expires (at most the token lifetime).
 */
import type { AccessChange } from "../../domain/editor/ports.ts";
import type { PubSub } from "../../domain/ports.ts";

export interface RevocationLogger {
  warn(obj: object, msg: string): void;
}

export interface CollabRevocationsOptions {
  /** Cross-instance fan-out; null on a single instance. */
  pubsub: PubSub | null;
  /** e.g. `${redisPrefix}:collab-access` (apart from the rooms' `…:collab:{doc_id}` channels). */
  channel: string;
  instanceId: string;
  logger: RevocationLogger;
}

interface Wire {
  i: string;
  tenant_id: string;
  doc_id: string | null;
  user_id: number | null;
}

function parseWire(raw: string): Wire | null {
  try {
    const w = JSON.parse(raw) as Partial<Wire>;
    if (typeof w.i !== "string" || typeof w.tenant_id !== "string") return null;
    if (w.doc_id !== null && typeof w.doc_id !== "string") return null;
    if (w.user_id !== null && typeof w.user_id !== "number") return null;
    return w as Wire;
  } catch {
    return null;
  }
}

export class CollabRevocations {
  private readonly listeners = new Set<(change: AccessChange) => void>();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly opts: CollabRevocationsOptions) {}

  /** Subscribes to the other instances' changes; resolves once the subscription is live. */
  async start(): Promise<void> {
    if (!this.opts.pubsub || this.unsubscribe) return;
    this.unsubscribe = await this.opts.pubsub.subscribe(this.opts.channel, (raw) => this.onWire(raw));
  }

  /** Calls `listener` for every change, local or remote; returns the unsubscribe. */
  onChange(listener: (change: AccessChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells this instance now and the others through the bus. Never throws (the change is stored already). */
  async publish(change: AccessChange): Promise<void> {
    this.emit(change);
    const { pubsub } = this.opts;
    if (!pubsub) return;
    const wire: Wire = {
      i: this.opts.instanceId,
      tenant_id: change.tenantId,
      doc_id: change.docId,
      user_id: change.userId,
    };
    try {
      await pubsub.publish(this.opts.channel, JSON.stringify(wire));
    } catch (err) {
      this.opts.logger.warn({ err, ...wire }, "could not tell other instances about an editor access change");
    }
  }

  async close(): Promise<void> {
    const off = this.unsubscribe;
    this.unsubscribe = undefined;
    this.listeners.clear();
    await off?.();
  }

  private onWire(raw: string): void {
    const w = parseWire(raw);
    if (!w || w.i === this.opts.instanceId) return;
    this.emit({ tenantId: w.tenant_id, docId: w.doc_id, userId: w.user_id });
  }

  private emit(change: AccessChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        this.opts.logger.warn({ err }, "an editor access-change listener failed");
      }
    }
  }
}
