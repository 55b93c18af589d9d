/**
 * A bounded mailbox: a FIFO limited by message count and by total bytes, with a named
 * overflow policy. Nothing in Cairn queues without a bound (STYLE habit 8): a slow
 * consumer must cost a counted, logged drop or a named close, never unbounded memory.
 *
 * Policies when a new message does not fit:
 * - "drop_oldest": evict from the head until it fits (news subscribers: the newest
 *   article matters more than one the reader never saw). A message larger than the whole
 *   byte budget is refused instead, rather than emptying the box for nothing.
 * - "drop_newest": refuse the new message quietly; counted as dropped.
 * - "reject": refuse the new message; the caller is expected to act on `false`
 *   (answer 503, retry later); counted as rejected.
 * - "fail": close the mailbox with the named `failReason` so the owner shuts down the
 *   connection or actor instead of running on with a silently lossy stream.
 */

export type OverflowPolicy = "drop_oldest" | "drop_newest" | "reject" | "fail";

export const OVERFLOW_POLICIES: readonly OverflowPolicy[] = ["drop_oldest", "drop_newest", "reject", "fail"];

/** What happened on one overflow; owners log it (the counters below carry the totals). */
export type OverflowEvent =
  | { policy: "drop_oldest"; evicted: number; refusedNew: boolean }
  | { policy: "drop_newest" | "reject"; size: number }
  | { policy: "fail"; reason: string };

/** Why an accepted message will never be taken. */
export type DiscardReason = "evicted" | "closed";

export interface MailboxOptions<T> {
  /** Most messages held at once (integer >= 1). */
  maxCount: number;
  /** Most bytes held at once, as measured by sizeOf (> 0; Infinity allowed). */
  maxBytes: number;
  /** Size of one message in bytes; must be finite and >= 0. Called once per offer. */
  sizeOf: (message: T) => number;
  policy: OverflowPolicy;
  /** The close reason the "fail" policy uses (default "mailbox_overflow"). */
  failReason?: string;
  onOverflow?: (event: OverflowEvent) => void;
  /**
   * Called for each accepted message that will never be taken (evicted, or still queued
   * when the box closes with discard), so owners can release resources or reject a
   * waiting reply instead of leaving it hanging.
   */
  onDiscard?: (message: T, reason: DiscardReason) => void;
}

export type Take<T> = { done: false; value: T } | { done: true; reason: string };

export interface MailboxStats {
  /** Offers that returned true. */
  accepted: number;
  /** Messages handed to the consumer. */
  taken: number;
  /** Evicted by drop_oldest, or refused by drop_oldest/drop_newest. */
  dropped: number;
  /** Refused by reject/fail, or offered after close. */
  rejected: number;
  /** Accepted but thrown away by close({ discard: true }). */
  discarded: number;
  length: number;
  bytes: number;
  /** The most messages held at once since creation. */
  highWater: number;
}

export const DEFAULT_FAIL_REASON = "mailbox_overflow";

/** Throws a RangeError naming the bad option (fail fast at construction, habit 6). */
export function validateMailboxOptions<T>(o: MailboxOptions<T>): void {
  if (!Number.isInteger(o.maxCount) || o.maxCount < 1) {
    throw new RangeError(`mailbox maxCount must be an integer >= 1 (got ${o.maxCount})`);
  }
  if (!(o.maxBytes > 0)) throw new RangeError(`mailbox maxBytes must be > 0 (got ${o.maxBytes})`);
  if (!OVERFLOW_POLICIES.includes(o.policy)) {
    throw new RangeError(`mailbox policy must be one of ${OVERFLOW_POLICIES.join(", ")} (got ${String(o.policy)})`);
  }
}

export class Mailbox<T> {
  // A head-indexed array: shift() on a plain array is O(n) once it grows, and the
  // mailbox sits on every actor's hot path.
  private items: (T | undefined)[] = [];
  private sizes: number[] = [];
  private head = 0;
  private held = 0;
  private heldBytes = 0;
  private waiters: ((t: Take<T>) => void)[] = [];
  private closedWith: string | undefined;
  private readonly counts = { accepted: 0, taken: 0, dropped: 0, rejected: 0, discarded: 0, highWater: 0 };

  constructor(private readonly opts: MailboxOptions<T>) {
    validateMailboxOptions(opts);
  }

  get length(): number {
    return this.held;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** The reason given to close(), or the fail reason; undefined while open. */
  get closeReason(): string | undefined {
    return this.closedWith;
  }

  stats(): MailboxStats {
    return { ...this.counts, length: this.held, bytes: this.heldBytes };
  }

  /** Queues a message; false when it was refused (closed, or by the overflow policy). */
  offer(message: T): boolean {
    if (this.closedWith !== undefined) {
      this.counts.rejected++;
      return false;
    }
    const size = this.opts.sizeOf(message);
    if (!Number.isFinite(size) || size < 0) {
      throw new RangeError(`mailbox sizeOf returned ${size}; sizes must be finite and >= 0`);
    }
    if (this.held + 1 > this.opts.maxCount || this.heldBytes + size > this.opts.maxBytes) {
      if (!this.overflow(size)) return false;
    }
    this.counts.accepted++;
    const waiter = this.waiters.shift();
    if (waiter) {
      // A waiting consumer means the box is empty: hand the message over directly.
      this.counts.taken++;
      if (this.counts.highWater < 1) this.counts.highWater = 1;
      waiter({ done: false, value: message });
      return true;
    }
    this.items.push(message);
    this.sizes.push(size);
    this.held++;
    this.heldBytes += size;
    if (this.held > this.counts.highWater) this.counts.highWater = this.held;
    return true;
  }

  /**
   * The next message without waiting: a message, `done` once closed and empty, or
   * undefined when the consumer would have to wait. Lets a consumer drain a burst
   * without one promise per message.
   */
  poll(): Take<T> | undefined {
    if (this.held > 0) {
      this.counts.taken++;
      return { done: false, value: this.shift() };
    }
    if (this.closedWith !== undefined) return { done: true, reason: this.closedWith };
    return undefined;
  }

  /** The next message, waiting for one; `done` once the box is closed and empty. */
  take(): Promise<Take<T>> {
    const now = this.poll();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Stops accepting messages. Queued messages stay takeable unless `discard` is set,
   * in which case each goes to onDiscard. Idempotent; a later call may still escalate
   * to discard (a drain that takes too long can be cut short). The first reason wins.
   */
  close(reason = "closed", opts: { discard?: boolean } = {}): void {
    if (this.closedWith === undefined) this.closedWith = reason;
    if (opts.discard) {
      while (this.held > 0) {
        const m = this.shift();
        this.counts.discarded++;
        this.opts.onDiscard?.(m, "closed");
      }
    }
    // Waiters exist only while the box is empty, so each sees the end now.
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w({ done: true, reason: this.closedWith });
  }

  /** Applies the policy; true when the new message may now be queued. */
  private overflow(size: number): boolean {
    const { policy } = this.opts;
    switch (policy) {
      case "drop_oldest": {
        if (size > this.opts.maxBytes) {
          this.counts.dropped++;
          this.opts.onOverflow?.({ policy, evicted: 0, refusedNew: true });
          return false;
        }
        let evicted = 0;
        while (this.held > 0 && (this.held + 1 > this.opts.maxCount || this.heldBytes + size > this.opts.maxBytes)) {
          const m = this.shift();
          this.counts.dropped++;
          evicted++;
          this.opts.onDiscard?.(m, "evicted");
        }
        this.opts.onOverflow?.({ policy, evicted, refusedNew: false });
        return true;
      }
      case "drop_newest":
        this.counts.dropped++;
        this.opts.onOverflow?.({ policy, size });
        return false;
      case "reject":
        this.counts.rejected++;
        this.opts.onOverflow?.({ policy, size });
        return false;
      case "fail": {
        const reason = this.opts.failReason ?? DEFAULT_FAIL_REASON;
        this.counts.rejected++;
        this.close(reason);
        this.opts.onOverflow?.({ policy, reason });
        return false;
      }
    }
  }

  private shift(): T {
    const i = this.head;
    const m = this.items[i] as T;
    this.items[i] = undefined; // release the reference for the collector
    this.heldBytes -= this.sizes[i] ?? 0;
    this.head++;
    this.held--;
    if (this.held === 0) {
      this.items = [];
      this.sizes = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      // Compact once the dead prefix is at least half the array: amortised O(1).
      this.items = this.items.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    return m;
  }
}
