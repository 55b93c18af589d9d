/**
 * The ingest runner: an interval actor that polls the configured feeds. Each feed is read
 * at most every intervalMs, with the validators of its previous read (conditional GET),
 * and after a failure not before an exponential backoff (or the server's Retry-After)
 * has passed. At most `concurrency` reads run at once; a slot that frees pulls the next
 * due feed. Feed state lives in the control plane and each poll takes a lease on its
 * feed, so several instances share the work instead of repeating it.
 */
import type { Logger } from "pino";
import {
  type FeedOutcome,
  FeedReadError,
  type FeedReader,
  type FeedSpec,
  type FeedState,
  type FeedStateStore,
} from "../../domain/news/ports.ts";
import type { IngestStats, NewsIngestor } from "./ingest.ts";

export interface PollerOptions {
  /** Time between successful polls of one feed. */
  intervalMs: number;
  /** Most feeds read at the same time. */
  concurrency: number;
  /** First backoff after a failure; doubles per consecutive failure up to backoffMaxMs. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How long a claimed poll may take before another poller may take the feed. */
  leaseMs: number;
  /** How often the timer looks for due feeds. */
  tickMs: number;
}

export const DEFAULT_POLLER: PollerOptions = {
  intervalMs: 300_000,
  concurrency: 4,
  backoffBaseMs: 30_000,
  backoffMaxMs: 3_600_000,
  leaseMs: 120_000,
  tickMs: 5_000,
};

export interface PollerDeps {
  reader: FeedReader;
  state: FeedStateStore;
  ingestor: NewsIngestor;
  logger: Logger;
  now?: () => Date;
}

export type PollResult =
  | { feed: string; kind: "skipped"; retryAt: string }
  | { feed: string; kind: "not_modified" }
  | { feed: string; kind: "ingested"; stats: IngestStats }
  | { feed: string; kind: "failed"; error: string; failures: number; nextPollAt: string };

export function feedKey(f: FeedSpec): string {
  return `${f.type}:${f.url}`;
}

/** Delay before the next try after `failures` consecutive failures. */
export function backoffMs(failures: number, opts: Pick<PollerOptions, "backoffBaseMs" | "backoffMaxMs">): number {
  return Math.min(opts.backoffMaxMs, opts.backoffBaseMs * 2 ** Math.max(0, failures - 1));
}

export class NewsPoller {
  private readonly nextDue = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<PollResult>>();
  private readonly now: () => Date;
  private timer: ReturnType<typeof setInterval> | null = null;
  private closing = false;

  constructor(
    private readonly feeds: readonly FeedSpec[],
    private readonly deps: PollerDeps,
    private readonly opts: PollerOptions = DEFAULT_POLLER,
  ) {
    if (opts.concurrency < 1) throw new Error("news poller concurrency must be at least 1");
    this.now = deps.now ?? (() => new Date());
  }

  start(): void {
    if (this.timer || this.closing) return;
    this.pump();
    this.timer = setInterval(() => this.pump(), this.opts.tickMs);
  }

  /** Starts every due feed the free slots allow and waits until no poll is running (tests drive this). */
  async tick(): Promise<PollResult[]> {
    const results: PollResult[] = [];
    this.pump();
    // Each finished poll removes itself and may start the next due feed, so loop until none runs.
    while (this.inFlight.size > 0) results.push(...(await Promise.all([...this.inFlight.values()])));
    return results;
  }

  /** Stops the timer and waits for running polls; no new poll starts. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private pump(): void {
    if (this.closing) return;
    const now = this.now().getTime();
    for (const feed of this.feeds) {
      if (this.inFlight.size >= this.opts.concurrency) return;
      const key = feedKey(feed);
      if (this.inFlight.has(key) || (this.nextDue.get(key) ?? 0) > now) continue;
      const run = this.poll(feed).finally(() => {
        if (this.inFlight.get(key) === run) this.inFlight.delete(key);
        // A freed slot pulls the next due feed straight away rather than at the next tick.
        this.pump();
      });
      this.inFlight.set(key, run);
    }
  }

  /** One poll of one feed: claim, read, ingest, record. Never throws. */
  async poll(feed: FeedSpec): Promise<PollResult> {
    const key = feedKey(feed);
    const started = this.now();
    let claim: Awaited<ReturnType<FeedStateStore["claim"]>>;
    try {
      claim = await this.deps.state.claim(key, feed.url, started, this.opts.leaseMs);
    } catch (err) {
      this.deps.logger.error({ err, feed: key }, "news feed claim failed");
      const retryAt = new Date(started.getTime() + this.opts.backoffBaseMs).toISOString();
      this.nextDue.set(key, Date.parse(retryAt));
      return { feed: key, kind: "skipped", retryAt };
    }
    if (!claim.claimed) {
      this.nextDue.set(key, Date.parse(claim.retryAt));
      return { feed: key, kind: "skipped", retryAt: claim.retryAt };
    }
    const prev = claim.state;
    let outcome: FeedOutcome;
    let result: PollResult;
    try {
      const read = await this.deps.reader.read(feed, { etag: prev.etag, lastModified: prev.last_modified });
      const stats = read.kind === "items" ? await this.deps.ingestor.ingest(read.items) : null;
      // Validators are saved only after the items are stored, so a failed ingest re-reads them.
      outcome = this.success(started, read.etag, read.lastModified, read.kind === "items" ? 200 : 304);
      result = stats ? { feed: key, kind: "ingested", stats } : { feed: key, kind: "not_modified" };
      if (stats) this.deps.logger.info({ feed: key, ...stats }, "news feed ingested");
    } catch (err) {
      outcome = this.failure(started, prev, err);
      result = {
        feed: key,
        kind: "failed",
        error: outcome.last_error ?? "",
        failures: outcome.failures,
        nextPollAt: outcome.next_poll_at,
      };
      this.deps.logger.warn(
        { feed: key, err, failures: outcome.failures, next_poll_at: outcome.next_poll_at },
        "news feed failed",
      );
    }
    this.nextDue.set(key, Date.parse(outcome.next_poll_at));
    try {
      await this.deps.state.release(key, outcome);
    } catch (err) {
      // The lease then expires on its own; the next claim re-reads the feed.
      this.deps.logger.error({ err, feed: key }, "news feed state not saved");
    }
    return result;
  }

  private success(at: Date, etag: string | null, lastModified: string | null, status: number): FeedOutcome {
    return {
      etag,
      last_modified: lastModified,
      failures: 0,
      next_poll_at: new Date(at.getTime() + this.opts.intervalMs).toISOString(),
      last_status: status,
      last_error: null,
      last_polled_at: at.toISOString(),
    };
  }

  private failure(at: Date, prev: FeedState, err: unknown): FeedOutcome {
    const failures = prev.failures + 1;
    const readErr = err instanceof FeedReadError ? err : null;
    const delay = Math.max(backoffMs(failures, this.opts), readErr?.retryAfterMs ?? 0);
    return {
      etag: prev.etag,
      last_modified: prev.last_modified,
      failures,
      next_poll_at: new Date(at.getTime() + Math.min(delay, this.opts.backoffMaxMs)).toISOString(),
      last_status: readErr?.status ?? null,
      last_error: (err instanceof Error ? err.message : String(err)).slice(0, 500),
      last_polled_at: at.toISOString(),
    };
  }
}
