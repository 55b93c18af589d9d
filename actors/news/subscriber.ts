/**
 * One news-stream connection's actor: its filter, a bounded queue of articles (spec 8.2:
 * 200, drop oldest), and the only code that writes articles to its socket.
 *
 * It is built on Mailbox rather than Actor on purpose. Actor's loop hands over one
 * message per handler call; this actor must instead drain a burst under one socket cork
 * (one write syscall for many frames) and stop the moment the socket reports
 * backpressure, resuming on `drain`. While it waits, the hub keeps offering articles and
 * the mailbox evicts the oldest: a slow reader loses messages, is told how many, and is
 * never disconnected for it. Nothing here is asynchronous, so no message costs a promise.
 *
 * Every article frame carries two fields beyond spec 6.1 (see docs/decisions.md):
 * `seq`, 1, 2, 3... over the article messages this connection was sent, and `dropped`,
 * how many matching articles this connection has lost so far. Between two consecutive
 * frames, the difference in `dropped` is exactly what was lost in between.
 */
import type { Article } from "../../domain/news/types.ts";
import { Mailbox } from "../mailbox.ts";
import { type CompiledFilter, matchesCompiled } from "./filter-index.ts";

/** A published article as the hub keeps it: encoded once, shared by every recipient. */
export interface HubArticle {
  /** The article_id (the ring's key). */
  readonly id: string;
  /** Hub-local publish order, from 1. */
  readonly hseq: number;
  readonly article: Article;
  /** JSON of toWire(article): the `data` of every article frame, spliced, never re-encoded. */
  readonly wire: string;
}

/** Where a subscriber writes; the socket layer adapts a Bun ServerWebSocket to it. */
export interface NewsSink {
  /** A text frame. Bun's status: bytes written (> 0), -1 queued under backpressure, 0 dropped. */
  send(text: string): number;
  /** Runs fn with writes batched into one flush (Bun's ws.cork). */
  cork(fn: () => void): void;
  close(code: number, reason: string): void;
}

/** Who is connected, for logs. */
export interface SubscriberMeta {
  conn_id: string;
  tenant_id: string;
  user_id: number;
}

export interface SubscriberHooks {
  /** Articles were lost (evicted from the queue, or refused by the socket); `first` opens a run. */
  onLost(sub: NewsSubscriber, count: number, first: boolean): void;
  /** The queue emptied after a run of losses; `lost` is that run's total. */
  onRecovered(sub: NewsSubscriber, lost: number): void;
}

export interface SubscriberOptions {
  /** Most articles queued (spec 8.2: 200). */
  queueSize: number;
  /** Most bytes of encoded articles queued (the bytes are shared, this bounds the worst case). */
  queueBytes: number;
}

export interface SubscriberStats {
  conn_id: string;
  /** Article messages sent (the last `seq`). */
  sent: number;
  dropped: number;
  queued: number;
  /** The most articles ever queued at once (at most the queue size). */
  queuedMax: number;
  /** Waiting for the socket to drain. */
  blocked: boolean;
}

export class NewsSubscriber {
  private readonly box: Mailbox<HubArticle>;
  private compiled: CompiledFilter;
  /** Articles up to this hub seq were matched under an earlier filter: re-check them. */
  private filterSince = 0;
  private sent = 0;
  private lost = 0;
  /** The lost count when the current run of losses began; -1 when none is running. */
  private lostAtEpisodeStart = -1;
  private blocked = false;
  private closed = false;
  private readonly queueSize: number;
  /** Set while the hub holds this subscriber in its to-flush list. */
  pending = false;

  constructor(
    readonly meta: SubscriberMeta,
    private readonly sink: NewsSink,
    filter: CompiledFilter,
    opts: SubscriberOptions,
    private readonly hooks: SubscriberHooks,
  ) {
    this.compiled = filter;
    this.queueSize = opts.queueSize;
    this.box = new Mailbox<HubArticle>({
      maxCount: opts.queueSize,
      maxBytes: opts.queueBytes,
      sizeOf: (a) => a.wire.length,
      policy: "drop_oldest",
      onOverflow: (e) => {
        if (e.policy === "drop_oldest") this.countLost(e.evicted + (e.refusedNew ? 1 : 0));
      },
    });
  }

  /** Queues an article for this connection; true when it now needs a flush. */
  offer(a: HubArticle): boolean {
    if (this.closed) return false;
    // A burst larger than the queue inside one tick must not cost drops while the socket
    // is writable: write what is queued now instead of waiting for the end of the tick.
    if (this.box.length >= this.queueSize && !this.blocked) this.flush();
    this.box.offer(a);
    return !this.blocked && !this.pending;
  }

  /**
   * Replaces the filter. Articles already queued were matched under the old one, so each
   * is checked again before it is sent: after filter_applied, only matches of the new
   * filter reach the client. `lastHseq` is the newest article the hub has fanned out.
   */
  setFilter(filter: CompiledFilter, lastHseq: number): void {
    this.compiled = filter;
    this.filterSince = lastHseq;
  }

  /** Writes queued articles until the queue is empty or the socket pushes back. */
  flush(): void {
    this.pending = false;
    if (this.blocked || this.closed || this.box.length === 0) return;
    this.sink.cork(() => this.pump());
    if (this.box.length === 0 && this.lostAtEpisodeStart >= 0) {
      const lost = this.lost - this.lostAtEpisodeStart;
      this.lostAtEpisodeStart = -1;
      this.hooks.onRecovered(this, lost);
    }
  }

  /** The socket drained its buffer: resume writing. */
  drain(): void {
    this.blocked = false;
    this.flush();
  }

  /**
   * A control frame (connected, filter_applied, error), written at once: replies are
   * small and come only when the client speaks. Under backpressure Bun buffers it (up to
   * the server's backpressureLimit); articles wait for the drain either way.
   */
  sendControl(text: string): number {
    if (this.closed) return 0;
    const status = this.sink.send(text);
    if (status === -1) this.blocked = true;
    return status;
  }

  /** Stops for good; queued articles are discarded. The socket is closed by its owner. */
  close(): void {
    this.closed = true;
    this.box.close("closed", { discard: true });
  }

  /** Closes the connection itself (server shutdown). */
  closeSocket(code: number, reason: string): void {
    this.sink.close(code, reason);
  }

  stats(): SubscriberStats {
    return {
      conn_id: this.meta.conn_id,
      sent: this.sent,
      dropped: this.lost,
      queued: this.box.length,
      queuedMax: this.box.stats().highWater,
      blocked: this.blocked,
    };
  }

  private pump(): void {
    while (!this.blocked) {
      const next = this.box.poll();
      if (next === undefined || next.done) return;
      const a = next.value;
      if (a.hseq <= this.filterSince && !matchesCompiled(this.compiled, a.article)) continue;
      const seq = this.sent + 1;
      // The envelope is spliced around the shared encoding: no per-recipient stringify.
      const status = this.sink.send(`{"type":"article","seq":${seq},"dropped":${this.lost},"data":${a.wire}}`);
      if (status === 0) {
        // Bun refused it (buffer limit reached, or the socket is closing): lost, and the
        // seq is not used, so seq stays contiguous over what was actually sent.
        this.countLost(1);
        this.blocked = true;
      } else {
        this.sent = seq;
        if (status === -1) this.blocked = true;
      }
    }
  }

  private countLost(n: number): void {
    if (n <= 0) return;
    const first = this.lostAtEpisodeStart < 0;
    if (first) this.lostAtEpisodeStart = this.lost;
    this.lost += n;
    this.hooks.onLost(this, n, first);
  }
}
