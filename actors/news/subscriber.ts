/**
 * One news-stream connection's actor: its filter, a bounded queue of articles (spec 8.2:
 * 200, drop oldest), and the only code that writes articles to its socket.
 *
 * Two paths, one sequence (docs/news.md "The live stream"):
 * - direct: while the socket takes frames (no backpressure reported), held articles are
 *   written when the hub releases them (the event-loop turn's first article at once, its
 *   later ones together when the turn ends): one as a bare broadcast writes it, several
 *   under one cork, so a busy turn costs each socket one write instead of one per article.
 *   Nothing can be waiting in the queue then, because it only fills while the socket is
 *   blocked and is emptied before it unblocks.
 * - queued: once Bun reports backpressure (-1) or refuses a frame (0), articles go to a
 *   bounded Mailbox (created then, so a reader that keeps up never pays for one) that
 *   evicts the oldest; on `drain` the queue is written under one cork until it is empty
 *   or the socket pushes back again. A slow reader loses messages, is told how many, and
 *   is never disconnected for it. Nothing here is asynchronous.
 *
 * Every article frame carries two fields beyond spec 6.1 (see docs/decisions.md):
 * `seq`, 1, 2, 3... over the article messages this connection was sent, and `dropped`,
 * how many matching articles this connection has lost so far. Between two consecutive
 * frames, the difference in `dropped` is exactly what was lost in between. Both paths
 * share `sent` and `lost`, so switching between them keeps both exact.
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

/**
 * Where a subscriber writes. A Bun ServerWebSocket is one as it is (the socket layer passes
 * the socket itself: no adapter object or closures per connection).
 */
export interface NewsSink {
  /** A text frame. Bun's status: bytes written (> 0), -1 queued under backpressure, 0 dropped. */
  sendText(text: string): number;
  /** Runs fn with writes batched into one flush (Bun's ws.cork). */
  cork(fn: () => void): unknown;
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

const wireLength = (a: HubArticle): number => a.wire.length;

/** `,"dropped":<lost>,"data":`: the part of an article frame between `seq` and the article. */
const tailOf = (lost: number): string => `,"dropped":${lost},"data":`;
const NO_LOSS = tailOf(0);

/** An article frame: the envelope spliced around the shared encoding, no object or stringify. */
const articleFrame = (seq: number, tail: string, a: HubArticle): string =>
  `{"type":"article","seq":${seq}${tail}${a.wire}}`;

/**
 * One article of a fan-out turn and the frames already built for it, by `seq`, for
 * subscribers that have lost nothing (`"dropped":0`): recipients whose counters agree get
 * the same string, so it is built and made flat (on its first send) once, as a bare
 * broadcast's frame is, instead of once per recipient. The bytes each connection receives
 * are unchanged. Subscribers connected together with the same or similar filters share
 * most; the hub drops it with the turn, so it holds one article's frames at most.
 */
export class SharedFrames {
  private readonly bySeq = new Map<number, string>();

  constructor(readonly article: HubArticle) {}

  frame(seq: number): string {
    let text = this.bySeq.get(seq);
    if (text === undefined) {
      text = articleFrame(seq, NO_LOSS, this.article);
      this.bySeq.set(seq, text);
    }
    return text;
  }
}

/** The subscriber being released under its cork (one at a time: no closure per release). */
let releasing: NewsSubscriber | null = null;
const releaseHeld = (): void => releasing?.writeHeld();

export class NewsSubscriber {
  /** Created the first time the socket backs up, then kept (a reader that stalled once may again). */
  private box: Mailbox<HubArticle> | null = null;
  private compiled: CompiledFilter;
  /** Articles up to this hub seq were matched under an earlier filter: re-check them. */
  private filterSince = 0;
  private sent = 0;
  private lost = 0;
  /** `,"dropped":<lost>,"data":`, rebuilt only when `lost` changes (rarely), not per frame. */
  private tail = NO_LOSS;
  /** The lost count when the current run of losses began; -1 when none is running. */
  private lostAtEpisodeStart = -1;
  /** The socket reported backpressure: articles queue until `drain`. Invariant: not blocked => queue empty. */
  private blocked = false;
  private closed = false;
  /** This turn's articles for this connection, written together by release(). */
  private held: SharedFrames[] = [];

  constructor(
    readonly meta: SubscriberMeta,
    private readonly sink: NewsSink,
    filter: CompiledFilter,
    /** Shared by every subscriber of a hub. */
    private readonly opts: SubscriberOptions,
    private readonly hooks: SubscriberHooks,
  ) {
    this.compiled = filter;
  }

  /**
   * Holds an article that matched this connection's filter until the hub releases the
   * turn; true when it is the first one held (the hub lists the connection then).
   */
  hold(f: SharedFrames): boolean {
    this.held.push(f);
    return this.held.length === 1;
  }

  /**
   * Writes the articles held this turn, in order: one straight to the socket, several under
   * one cork, so they leave in one socket write instead of one each.
   */
  release(): void {
    // Closed since it held them: close() discarded them, and the socket is gone.
    if (this.held.length === 0) return;
    try {
      if (this.held.length === 1) this.writeHeld();
      else {
        releasing = this;
        this.sink.cork(releaseHeld);
      }
    } finally {
      releasing = null;
      this.held.length = 0;
    }
  }

  /**
   * release()'s body. Each article is written while the socket takes frames, else queued
   * (the oldest is evicted, and counted, when the queue is full). One held under a filter
   * replaced since is checked again, as a queued one is (pump): after filter_applied, only
   * matches of the new filter go out.
   */
  writeHeld(): void {
    for (const f of this.held) {
      if (this.closed) return;
      const a = f.article;
      if (a.hseq <= this.filterSince && !matchesCompiled(this.compiled, a.article)) continue;
      if (this.blocked) this.queue().offer(a);
      else this.write(a, f);
    }
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

  /** The socket drained its buffer: write what queued meanwhile, until empty or blocked again. */
  drain(): void {
    this.blocked = false;
    if (this.closed) return;
    const box = this.box;
    // A burst under one cork: one write for many frames.
    if (box !== null && box.length > 0) this.sink.cork(() => this.pump(box));
    if (this.lostAtEpisodeStart >= 0 && (box === null || box.length === 0)) {
      const lost = this.lost - this.lostAtEpisodeStart;
      this.lostAtEpisodeStart = -1;
      this.hooks.onRecovered(this, lost);
    }
  }

  /**
   * A control frame (connected, filter_applied, error), written at once: replies are
   * small and come only when the client speaks. Under backpressure Bun buffers it (up to
   * the server's backpressureLimit); articles wait for the drain either way.
   */
  sendControl(text: string): number {
    if (this.closed) return 0;
    const status = this.sink.sendText(text);
    if (status === -1) this.blocked = true;
    return status;
  }

  /** Stops for good; queued articles are discarded. The socket is closed by its owner. */
  close(): void {
    this.closed = true;
    this.held.length = 0;
    this.box?.close("closed", { discard: true });
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
      queued: this.box?.length ?? 0,
      queuedMax: this.box?.stats().highWater ?? 0,
      blocked: this.blocked,
    };
  }

  private queue(): Mailbox<HubArticle> {
    this.box ??= new Mailbox<HubArticle>({
      maxCount: this.opts.queueSize,
      maxBytes: this.opts.queueBytes,
      sizeOf: wireLength,
      policy: "drop_oldest",
      onOverflow: (e) => {
        if (e.policy === "drop_oldest") this.countLost(e.evicted + (e.refusedNew ? 1 : 0));
      },
    });
    return this.box;
  }

  private pump(box: Mailbox<HubArticle>): void {
    while (!this.blocked) {
      const next = box.poll();
      if (next === undefined || next.done) return;
      const a = next.value;
      if (a.hseq <= this.filterSince && !matchesCompiled(this.compiled, a.article)) continue;
      this.write(a, null);
    }
  }

  /**
   * One article frame (`articleFrame`), taken from `shared` when another recipient of this
   * article already has the same one.
   */
  private write(a: HubArticle, shared: SharedFrames | null): void {
    const seq = this.sent + 1;
    const text = shared !== null && this.lost === 0 ? shared.frame(seq) : articleFrame(seq, this.tail, a);
    const status = this.sink.sendText(text);
    if (status > 0) {
      this.sent = seq;
      return;
    }
    this.blocked = true;
    // -1: Bun buffered it (sent; drain follows). 0: Bun refused it (buffer limit reached, or
    // the socket is closing): lost, and the seq is not used, so seq stays contiguous over
    // what was actually sent.
    if (status === -1) this.sent = seq;
    else this.countLost(1);
  }

  private countLost(n: number): void {
    if (n <= 0) return;
    const first = this.lostAtEpisodeStart < 0;
    if (first) this.lostAtEpisodeStart = this.lost;
    this.lost += n;
    this.tail = tailOf(this.lost);
    this.hooks.onLost(this, n, first);
  }
}
