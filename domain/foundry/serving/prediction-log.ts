/**
 * The prediction log's writer (drift reads the log; docs/foundry-serving.md). A predict hands its
 * entries over and answers without waiting for the database: a flush, scheduled a few
 * milliseconds later, writes everything pending in one append per deployment, so a burst of
 * requests costs one transaction, not one each. Entries past the newest `keep` of a deployment
 * are dropped before they are written (the store's bound would delete them at once).
 *
 * Bounded: with `maxPending` entries waiting, the next append waits for a flush (backpressure,
 * nothing dropped). Readers of the log (drift) and shutdown call `flush()` first, so they see
 * every prediction answered before. A crash loses at most the entries not yet flushed, which
 * is a drift sample's loss, never an answer's; a failed write is logged and its entries
 * dropped (the log is a bounded sample, not a ledger).
 */
import type { Logger } from "pino";
import type { PredictionLogEntry } from "./model.ts";
import type { DeploymentStore } from "./ports.ts";

export interface PredictionLogOptions {
  /** Entries kept per deployment. */
  keep: number;
  /** Entries waiting before an append waits for the database. */
  maxPending: number;
  /** Milliseconds between the first pending entry and its flush. */
  delayMs: number;
}

export class PredictionLogWriter {
  private pending = new Map<string, PredictionLogEntry[]>();
  private count = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<DeploymentStore, "appendPredictions">,
    private readonly opts: PredictionLogOptions,
    private readonly logger: Logger,
  ) {}

  /** Queues the entries; resolves at once unless `maxPending` entries are already waiting. */
  async append(deploymentId: string, entries: PredictionLogEntry[]): Promise<void> {
    if (!entries.length) return;
    const list = this.pending.get(deploymentId) ?? [];
    if (!list.length) this.pending.set(deploymentId, list);
    for (const e of entries) list.push(e);
    this.count += entries.length;
    if (list.length > this.opts.keep) {
      const over = list.length - this.opts.keep;
      list.splice(0, over);
      this.count -= over;
    }
    if (this.count >= this.opts.maxPending) {
      await this.flush();
      return;
    }
    this.timer ??= setTimeout(() => void this.flush(), this.opts.delayMs);
  }

  /** Writes everything pending now; resolves once it (and any flush before it) is in the store. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.pending;
    this.pending = new Map();
    this.count = 0;
    this.running = this.running.then(() => this.write(batch));
    return this.running;
  }

  /** Entries waiting to be written (for tests and the operator). */
  get waiting(): number {
    return this.count;
  }

  private async write(batch: Map<string, PredictionLogEntry[]>): Promise<void> {
    for (const [deploymentId, entries] of batch) {
      try {
        await this.store.appendPredictions(deploymentId, entries, this.opts.keep);
      } catch (err) {
        this.logger.warn(
          { err, deploymentId, entries: entries.length },
          "prediction log write failed; these entries are not in the drift window",
        );
      }
    }
  }
}
