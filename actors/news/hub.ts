/**
 * The news hub (ARCHITECTURE "Actors and backpressure"): the NewsPublisher the ingest
 * pipeline calls for every newly stored article, and the fan-out to every connected
 * stream subscriber on every instance.
 *
 * publish(article):
 * 1. dedup by article_id against the ring of the last 10,000 articles (spec 8.2);
 * 2. encode the article's wire JSON once (toWire + stringify) for all recipients;
 * 3. find the matching subscribers through the NewsIndex (cost follows the plausible
 *    subscribers, not all of them) and write the shared entry to each: the event-loop
 *    turn's first article at once, later ones of the same turn held until it ends (or
 *    `turnFrames` frames are held), when each subscriber writes them together, one socket
 *    write for several, or queues them if its socket backs up (subscriber.ts);
 * 4. broadcast the article on the pub/sub channel, so every other instance fans it out
 *    to its own subscribers. Local subscribers are served first (no Redis round trip),
 *    and an instance ignores its own broadcast when it comes back (origin check) — and
 *    the ring's dedup would drop it anyway — so nobody receives an article twice.
 */
import { z } from "zod";
import type { NewsPublisher } from "../../domain/news/ports.ts";
import { type Article, type NewsFilter, SENTIMENT_LABELS, SOURCE_TYPES, toWire } from "../../domain/news/types.ts";
import type { PubSub } from "../../domain/ports.ts";
import { compileFilter, NewsIndex, type NewsIndexStats } from "./filter-index.ts";
import { ArticleRing } from "./ring.ts";
import {
  type HubArticle,
  type NewsSink,
  NewsSubscriber,
  SharedFrames,
  type SubscriberMeta,
  type SubscriberStats,
} from "./subscriber.ts";

/** The subset of a pino logger the hub uses. */
export interface NewsLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface NewsHubOptions {
  /** Cross-instance fan-out; null keeps the hub local (one instance, or tests). */
  pubsub: PubSub | null;
  /** The channel every instance of one installation shares. */
  channel: string;
  logger: NewsLogger;
  /** Articles remembered for dedup and inspection (spec 8.2: 10,000). */
  ringSize?: number;
  /** Per-connection queue (spec 8.2: 200). */
  queueSize?: number;
  /** Per-connection queue bound in bytes of encoded articles (default 8 MiB). */
  queueBytes?: number;
  /**
   * Most frames one event-loop turn holds before they are written (default 8,192): bounds
   * how long a held article waits for the turn's end (~40 ms of sends at ~5 µs each).
   */
  turnFrames?: number;
}

export const NEWS_DEFAULTS = {
  ringSize: 10_000,
  queueSize: 200,
  queueBytes: 8 * 1024 * 1024,
  turnFrames: 8_192,
} as const;

const FAILURE_LOG_INTERVAL_MS = 10_000;

export interface NewsHubStats {
  subscribers: number;
  index: NewsIndexStats;
  ring: { size: number; capacity: number };
  /** Articles accepted from this instance's publish(). */
  published: number;
  /** Articles accepted from other instances through the channel. */
  received: number;
  /** Articles not fanned out again because their id was in the ring. */
  duplicates: number;
  /** Channel messages that failed validation. */
  invalid: number;
  /** Broadcasts to the channel that failed (local delivery had already happened). */
  broadcast_failures: number;
  /** Offers to subscriber queues (one per matching subscriber per article). */
  matched: number;
  /** Articles lost by slow subscribers, all connections together. */
  dropped: number;
}

// Validated on receipt: the channel crosses a process boundary (STYLE habit 5). Typed
// against Article, so a new Article field fails to compile here until it is added.
const ArticleSchema: z.ZodType<Article> = z.object({
  article_id: z.string().min(1).max(256),
  url: z.string(),
  title: z.string(),
  snippet: z.string(),
  summary: z.string(),
  source_name: z.string(),
  source_type: z.enum(SOURCE_TYPES),
  published_at: z.string(),
  categories: z.array(z.string()),
  country_codes: z.array(z.string()),
  company_tickers: z.array(z.string()),
  company_names: z.array(z.string()),
  sentiment_label: z.enum(SENTIMENT_LABELS),
  sentiment_score: z.number(),
  impact_score: z.number(),
  impact_label: z.string(),
  ingested_at: z.string(),
});
const ChannelMessage = z.object({ v: z.literal(1), origin: z.string().max(256), article: ArticleSchema });

export class NewsHub implements NewsPublisher {
  /** Tells this hub's own broadcasts apart on the channel (per process, not per config). */
  readonly origin = crypto.randomUUID();
  private readonly ownPrefix = `{"v":1,"origin":${JSON.stringify(this.origin)},`;
  private readonly index = new NewsIndex<NewsSubscriber>();
  private readonly ring: ArticleRing<HubArticle>;
  private readonly subscribers = new Set<NewsSubscriber>();
  private readonly queueSize: number;
  private readonly turnFrames: number;
  /** One options object for every subscriber (not a copy per connection). */
  private readonly subOpts: { queueSize: number; queueBytes: number };
  /** Subscribers holding articles of this turn (subscriber.ts "hold"), released when it ends. */
  private readonly touched: NewsSubscriber[] = [];
  /** Frames held this turn: at `turnFrames` they are written at once, not at the turn's end. */
  private heldFrames = 0;
  /** An article was published in this event-loop turn; `endTurn` runs when it ends. */
  private turnOpen = false;
  /** The article being matched; read by `hold`, so the match loop allocates no closure. */
  private delivering: SharedFrames | null = null;
  private readonly hold = (sub: NewsSubscriber): void => {
    if (sub.hold(this.delivering as SharedFrames)) this.touched.push(sub);
  };
  private readonly endTurn = (): void => {
    this.turnOpen = false;
    this.release();
  };
  /**
   * Writes every frame held, each subscriber's under one cork. A failing socket is logged,
   * not thrown (the turn's end runs outside publish()), and never keeps the others from
   * their frames.
   */
  private readonly release = (): void => {
    this.heldFrames = 0;
    const touched = this.touched;
    for (let i = 0; i < touched.length; i++) {
      const sub = touched[i] as NewsSubscriber;
      try {
        sub.release();
      } catch (error) {
        this.opts.logger.error({ err: error, ...sub.meta }, "writing news frames to a subscriber failed");
      }
    }
    touched.length = 0;
  };
  private hseq = 0;
  private unsubscribe: (() => Promise<void>) | null = null;
  private closing: Promise<void> | undefined;
  /** Set by closeStreams(): new connections are refused, articles are still accepted. */
  private refusing = false;
  private lastFailureLog = Number.NEGATIVE_INFINITY;
  private readonly counts = {
    published: 0,
    received: 0,
    duplicates: 0,
    invalid: 0,
    broadcast_failures: 0,
    matched: 0,
    dropped: 0,
  };
  private readonly hooks = {
    // Two lines per run of losses (when it starts, when it ends), never one per article:
    // a stalled reader must not flood the log. The close line carries the total as well.
    onLost: (sub: NewsSubscriber, n: number, first: boolean) => {
      this.counts.dropped += n;
      if (first) {
        this.opts.logger.warn(
          { ...sub.meta, queue: this.queueSize },
          "news subscriber fell behind: its queue is full, dropping the oldest articles",
        );
      }
    },
    onRecovered: (sub: NewsSubscriber, lost: number) => {
      this.opts.logger.info(
        { ...sub.meta, lost, dropped_total: sub.stats().dropped },
        "news subscriber caught up after losing articles",
      );
    },
  };

  constructor(private readonly opts: NewsHubOptions) {
    this.ring = new ArticleRing(opts.ringSize ?? NEWS_DEFAULTS.ringSize);
    this.queueSize = opts.queueSize ?? NEWS_DEFAULTS.queueSize;
    this.subOpts = { queueSize: this.queueSize, queueBytes: opts.queueBytes ?? NEWS_DEFAULTS.queueBytes };
    this.turnFrames = opts.turnFrames ?? NEWS_DEFAULTS.turnFrames;
  }

  /** Joins the cross-instance channel; resolves once the subscription is live. */
  async start(): Promise<void> {
    if (!this.opts.pubsub || this.unsubscribe) return;
    this.unsubscribe = await this.opts.pubsub.subscribe(this.opts.channel, (m) => this.onChannel(m));
  }

  /**
   * Fans a newly stored article out to the matching subscribers here, then to the other
   * instances. A failed broadcast is logged and counted, not thrown: the article is
   * stored and local subscribers have it, and retrying the ingest would not help.
   */
  async publish(article: Article): Promise<void> {
    if (this.closing) throw new Error("news hub is closed");
    if (!this.accept(article)) return;
    this.counts.published++;
    const { pubsub, channel } = this.opts;
    if (!pubsub) return;
    try {
      await pubsub.publish(channel, JSON.stringify({ v: 1, origin: this.origin, article }));
    } catch (error) {
      this.counts.broadcast_failures++;
      // With Redis down every article fails: one line per interval, with the count, not a flood.
      const now = performance.now();
      if (now - this.lastFailureLog >= FAILURE_LOG_INTERVAL_MS) {
        this.lastFailureLog = now;
        this.opts.logger.error(
          { err: error, article_id: article.article_id, broadcast_failures: this.counts.broadcast_failures },
          "news broadcast to other instances failed",
        );
      }
    }
  }

  /**
   * A new connection: it receives every article until it sends a filter (spec 6.1).
   * Null once the hub is closing (the caller closes the socket with 1001).
   */
  connect(sink: NewsSink, meta: SubscriberMeta): NewsSubscriber | null {
    if (this.closing || this.refusing) return null;
    const compiled = compileFilter({});
    const sub = new NewsSubscriber(meta, sink, compiled, this.subOpts, this.hooks);
    this.subscribers.add(sub);
    this.index.set(sub, compiled);
    return sub;
  }

  /** Replaces a subscriber's filter (already validated and normalised at the socket edge). */
  setFilter(sub: NewsSubscriber, filter: NewsFilter): void {
    if (!this.subscribers.has(sub)) return;
    const compiled = compileFilter(filter);
    sub.setFilter(compiled, this.hseq);
    this.index.set(sub, compiled);
  }

  /** The connection closed: forget it and discard what it had queued. Idempotent. */
  disconnect(sub: NewsSubscriber): void {
    if (!this.subscribers.delete(sub)) return;
    this.index.remove(sub);
    sub.close();
  }

  /**
   * Closes every stream of a tenant that may no longer be served (deactivated): routing
   * stops for open connections too, not only for new ones. Returns how many were closed.
   */
  closeTenant(tenantId: string, code: number, reason: string): number {
    let closed = 0;
    for (const sub of [...this.subscribers]) {
      if (sub.meta.tenant_id !== tenantId) continue;
      sub.closeSocket(code, reason);
      this.disconnect(sub);
      closed++;
    }
    return closed;
  }

  /**
   * Shutdown begins: closes every stream socket (1001, going away) and refuses new ones,
   * because Bun's graceful stop waits for open sockets. Unlike close(), the hub keeps
   * accepting articles (the ingest workers stop later) and stays on the channel. Idempotent;
   * returns how many sockets were closed.
   */
  closeStreams(code = 1001, reason = "server shutting down"): number {
    this.refusing = true;
    let closed = 0;
    for (const sub of [...this.subscribers]) {
      this.disconnect(sub);
      sub.closeSocket(code, reason);
      closed++;
    }
    return closed;
  }

  /** Recently published articles, newest first (inspection; never replayed to clients). */
  recent(limit = 20): Article[] {
    return this.ring.recent(limit).map((e) => e.article);
  }

  /** Whether an article id is within the dedup window. */
  has(articleId: string): boolean {
    return this.ring.has(articleId);
  }

  subscriberStats(): SubscriberStats[] {
    return [...this.subscribers].map((s) => s.stats());
  }

  stats(): NewsHubStats {
    return {
      subscribers: this.subscribers.size,
      index: this.index.stats(),
      ring: { size: this.ring.size, capacity: this.ring.capacity },
      ...this.counts,
    };
  }

  /**
   * Leaves the channel and closes every stream socket with 1001 (going away), so clients
   * reconnect to another instance. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const sub of [...this.subscribers]) {
        this.disconnect(sub);
        sub.closeSocket(1001, "server shutting down");
      }
      const off = this.unsubscribe;
      this.unsubscribe = null;
      if (off) await off();
    })();
    return this.closing;
  }

  /** Dedup, encode once, match and hold for the turn's release; false for a duplicate. */
  private accept(article: Article): boolean {
    if (this.ring.has(article.article_id)) {
      this.counts.duplicates++;
      return false;
    }
    const entry: HubArticle = {
      id: article.article_id,
      hseq: ++this.hseq,
      article,
      wire: JSON.stringify(toWire(article)),
    };
    this.ring.push(entry);
    this.delivering = new SharedFrames(entry);
    let matched: number;
    try {
      matched = this.index.match(article, this.hold);
    } finally {
      this.delivering = null;
    }
    this.counts.matched += matched;
    if (!this.turnOpen) {
      // The turn's first article goes out at once, as a bare broadcast's does, so a light
      // load (one article a turn) waits for nothing; the turn's later ones are held.
      this.turnOpen = true;
      setImmediate(this.endTurn);
      this.release();
      return true;
    }
    this.heldFrames += matched;
    if (this.heldFrames >= this.turnFrames) this.release();
    return true;
  }

  private onChannel(message: string): void {
    // Our own broadcast coming back: recognised by its prefix (publish() writes v, then
    // origin, first), so it costs no JSON parse or validation.
    if (message.startsWith(this.ownPrefix)) return;
    let parsed: z.infer<typeof ChannelMessage>;
    try {
      parsed = ChannelMessage.parse(JSON.parse(message));
    } catch (error) {
      this.counts.invalid++;
      this.opts.logger.warn({ err: error }, "invalid message on the news channel");
      return;
    }
    if (parsed.origin === this.origin || this.closing) return;
    if (this.accept(parsed.article)) this.counts.received++;
  }
}
