/**
 * The tenant actor and the routing cache (ARCHITECTURE "The request path", step 2).
 *
 * Every request resolves its tenant here. A TenantDirectory keeps one TenantActor per
 * recently used tenant in a Registry: the first resolve loads the record once however
 * many requests arrive together (single-flight), later resolves read the cached record
 * until it is ttlMs old, and a refresh then goes through the actor's mailbox, one at a
 * time, shared by every caller that found the record stale. Idle tenants are unloaded.
 *
 * Refusal is immediate: a tenant that is not active (provisioning, failed,
 * deprovisioned, or is_active false) is refused on every resolve, cached or not.
 * invalidate() drops the local entry and publishes on TENANT_INVALIDATE_CHANNEL so every
 * instance drops its own: after a DELETE, the very next resolve anywhere reads the store
 * (once the message has arrived; on Redis that is a network hop, not a TTL).
 */
import { z } from "zod";
import { AppError } from "../../domain/errors.ts";
import type { ControlPlaneStore, PubSub, Tenant } from "../../domain/ports.ts";
import type { TenantResolver } from "../../domain/tenants/ports.ts";
import { Actor, type Reply } from "../actor.ts";
import { Registry, type RegistryErrorEvent } from "../registry.ts";

export const TENANT_INVALIDATE_CHANNEL = "cairn:tenant:invalidate";

/** The only store call the directory needs. */
export type TenantStore = Pick<ControlPlaneStore, "getTenant">;

/** The subset of a pino logger used here; failures are logged, never swallowed. */
export interface TenantLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const stderrLogger: TenantLogger = {
  warn: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: "warn", msg, ...obj })}\n`),
  error: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: "error", msg, ...obj })}\n`),
};

export interface TenantDirectoryOptions {
  /** How long a loaded record is trusted without re-reading the store (config routingCacheTtlMs). */
  ttlMs: number;
  /** Unload a tenant's actor after this long unused (default 10 min). */
  idleMs?: number;
  /** Most tenants held at once; least recently used idle ones are evicted (default 10,000). */
  maxTenants?: number;
  /** Tells this instance's own invalidations apart on the channel (default: random). */
  instanceId?: string;
  /** Override the channel (tests on a shared server); default TENANT_INVALIDATE_CHANNEL. */
  channel?: string;
  now?: () => number;
  logger?: TenantLogger;
}

/** The wire format on the channel; validated on receipt (it crosses a process edge). */
const Invalidation = z.object({
  v: z.literal(1),
  tenant_id: z.string().min(1).max(256),
  origin: z.string().max(256),
});
type Invalidation = z.infer<typeof Invalidation>;

/** Messages of the tenant actor. More (quota updates, cache warm-ups) join this union. */
type TenantMsg = { type: "refresh"; reply: Reply<Tenant | null> };

/** What the actor holds: the last record read (null once the store no longer has it). */
interface TenantCache {
  record: Tenant | null;
  loadedAt: number;
}

/** One tenant's actor: the cached record, refreshed through the mailbox. */
export class TenantActor {
  /** Read on the hot path without a message; only the actor's handler writes it. */
  cache: TenantCache;
  private refreshing: Promise<Tenant | null> | undefined;
  private readonly actor: Actor<TenantMsg, TenantCache>;

  constructor(
    readonly tenantId: string,
    first: Tenant,
    store: TenantStore,
    private readonly now: () => number,
    logger: TenantLogger,
  ) {
    let fresh: TenantCache | undefined = { record: first, loadedAt: now() };
    this.cache = fresh;
    const refused = () => new AppError("unavailable", `tenant ${tenantId}: cache actor is stopping`);
    this.actor = new Actor<TenantMsg, TenantCache>({
      name: `tenant:${tenantId}`,
      // At most one refresh is queued (callers share it), so a small bound is ample.
      mailbox: {
        maxCount: 16,
        maxBytes: 16 * 256,
        sizeOf: () => 256,
        policy: "reject",
        onDiscard: (m) => m.reply.reject(refused()),
      },
      // The first state is the record just loaded; a restart keeps the record but marks
      // it stale, so the next resolve re-reads the store instead of trusting it.
      init: () => {
        const c = fresh ?? { record: this.cache.record, loadedAt: Number.NEGATIVE_INFINITY };
        fresh = undefined;
        this.cache = c;
        return c;
      },
      handle: async (c, m) => {
        switch (m.type) {
          case "refresh": {
            const startedAt = this.now();
            try {
              c.record = await store.getTenant(tenantId);
              c.loadedAt = startedAt;
              m.reply.resolve(c.record);
            } catch (error) {
              // Fail closed: without a fresh answer a request must not be let through.
              m.reply.reject(error);
            }
            return;
          }
        }
      },
      onEvent: (e) => {
        if (e.type === "handler_failed") {
          e.message.reply.reject(e.error);
          logger.error({ tenant_id: tenantId, err: String(e.error) }, "tenant actor handler failed");
        } else if (e.type === "exited" && e.exit.reason !== "stopped") {
          logger.error({ tenant_id: tenantId, exit: e.exit.reason }, "tenant actor exited");
        }
      },
    });
  }

  get idle(): boolean {
    return this.actor.idle && this.refreshing === undefined;
  }

  /** The record if younger than ttlMs, else one store read shared by concurrent callers. */
  current(ttlMs: number): Tenant | null | Promise<Tenant | null> {
    if (this.now() - this.cache.loadedAt < ttlMs) return this.cache.record;
    this.refreshing ??= this.actor
      .ask<Tenant | null>((reply) => ({ type: "refresh", reply }))
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** Finishes a refresh in progress (its callers get fresh data), then ends. */
  async stop(): Promise<void> {
    await this.actor.stop({ mode: "drain" });
  }
}

/** Throws unless the tenant may serve requests. */
export function assertActive(t: Tenant): Tenant {
  if (t.provisioning_state !== "active" || !t.is_active) {
    throw new AppError("tenant_inactive", `Tenant ${t.tenant_id} is not active (${t.provisioning_state})`);
  }
  return t;
}

export class TenantDirectory implements TenantResolver {
  readonly instanceId: string;
  private readonly registry: Registry<string, TenantActor>;
  private readonly ttlMs: number;
  private readonly channel: string;
  private readonly logger: TenantLogger;
  private starting: Promise<void> | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly listeners = new Set<(tenantId: string) => void>();
  private closing: Promise<void> | undefined;

  constructor(
    store: TenantStore,
    private readonly pubsub: PubSub,
    opts: TenantDirectoryOptions,
  ) {
    if (!(opts.ttlMs >= 0)) throw new RangeError(`tenant directory: ttlMs must be >= 0 (got ${opts.ttlMs})`);
    this.ttlMs = opts.ttlMs;
    this.instanceId = opts.instanceId ?? crypto.randomUUID();
    this.channel = opts.channel ?? TENANT_INVALIDATE_CHANNEL;
    this.logger = opts.logger ?? stderrLogger;
    const now = opts.now ?? Date.now;
    const logger = this.logger;
    this.registry = new Registry<string, TenantActor>({
      name: "tenants",
      create: async (id) => {
        const first = await store.getTenant(id);
        // Not cached: a tenant created a moment later must resolve on the next request.
        if (!first) throw new AppError("not_found", `Tenant ${id} not found`);
        return new TenantActor(id, first, store, now, logger);
      },
      destroy: (_id, actor) => actor.stop(),
      isIdle: (actor) => actor.idle,
      idleMs: opts.idleMs ?? 10 * 60_000,
      maxSize: opts.maxTenants ?? 10_000,
      now,
      onError: (e: RegistryErrorEvent<string>) =>
        logger.error({ tenant_id: e.key, phase: e.phase, err: String(e.error) }, "tenant registry error"),
    });
  }

  /**
   * Runs `listener(tenantId)` after every invalidation, local or from another instance,
   * once the local entry is gone (so a resolve inside it reads the store afresh).
   */
  onInvalidate(listener: (tenantId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tenants currently held (for metrics). */
  get size(): number {
    return this.registry.size;
  }

  /** Subscribes to invalidations; resolves once they are live. Idempotent. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      this.unsubscribe = await this.pubsub.subscribe(this.channel, (raw) => this.onInvalidation(raw));
    })();
    return this.starting;
  }

  /** The tenant, if it may serve requests; AppError not_found / tenant_inactive otherwise. */
  async resolve(tenantId: string): Promise<Tenant> {
    // Before start() another instance's invalidation could be missed: refuse to guess.
    if (!this.unsubscribe || this.closing) {
      throw new AppError("not_ready", "tenant directory is not started or is closed");
    }
    const actor = await this.registry.get(tenantId);
    const record = await actor.current(this.ttlMs);
    if (record === null) {
      if (this.registry.peek(tenantId) === actor) void this.registry.unload(tenantId);
      throw new AppError("not_found", `Tenant ${tenantId} not found`);
    }
    return assertActive(record);
  }

  /**
   * Drops the tenant here at once, then tells every other instance. If publishing fails
   * the error is thrown (the caller may retry); other instances then converge by ttlMs.
   */
  async invalidate(tenantId: string): Promise<void> {
    const local = this.registry.unload(tenantId);
    const message: Invalidation = { v: 1, tenant_id: tenantId, origin: this.instanceId };
    try {
      await this.pubsub.publish(this.channel, JSON.stringify(message));
    } finally {
      await local;
      this.notify(tenantId);
    }
  }

  private notify(tenantId: string): void {
    for (const listener of this.listeners) {
      try {
        listener(tenantId);
      } catch (err) {
        this.logger.error({ tenant_id: tenantId, err: String(err) }, "tenant invalidation listener failed");
      }
    }
  }

  /** The cached record, without loading or counting as a use (tests, diagnostics). */
  peek(tenantId: string): Tenant | undefined {
    return this.registry.peek(tenantId)?.cache.record ?? undefined;
  }

  /** Unsubscribes and unloads every tenant. Idempotent; leaves the PubSub open (not ours). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.starting?.catch(() => undefined);
      const off = this.unsubscribe;
      this.unsubscribe = undefined;
      try {
        await off?.();
      } finally {
        await this.registry.close();
      }
    })();
    return this.closing;
  }

  private onInvalidation(raw: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const msg = Invalidation.safeParse(parsed);
    if (!msg.success) {
      this.logger.warn({ channel: this.channel, raw: raw.slice(0, 200) }, "ignoring a malformed tenant invalidation");
      return;
    }
    // Our own message: the entry was dropped before publishing, and may be fresh again.
    if (msg.data.origin === this.instanceId) return;
    const tenantId = msg.data.tenant_id;
    void this.registry.unload(tenantId).then(() => this.notify(tenantId));
  }
}
