/**
 * The hub's memory of recent articles: a fixed ring of the last N (spec 8.2: 10,000)
 * with an id lookup. It serves two purposes and deliberately not a third:
 * - dedup: an article id seen within the window is not fanned out again (an echo from
 *   another instance, the same article published by two ingesting instances, a retry);
 * - inspection: operators and tests can look at what went out recently (`recent`, `get`).
 * It is never replayed to a new connection: the stream delivers live messages only (6.1).
 */

export interface RingItem {
  readonly id: string;
}

export class ArticleRing<T extends RingItem> {
  private readonly slots: (T | undefined)[];
  private readonly byId = new Map<string, T>();
  /** Next slot to write; also the oldest item once the ring is full. */
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`ring capacity must be an integer >= 1 (got ${capacity})`);
    }
    this.slots = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  /** Adds an item, evicting the oldest when full; returns the evicted item. */
  push(item: T): T | undefined {
    const old = this.slots[this.head];
    if (old !== undefined && this.byId.get(old.id) === old) this.byId.delete(old.id);
    this.slots[this.head] = item;
    this.byId.set(item.id, item);
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    return old;
  }

  /** Up to `limit` items, newest first. */
  recent(limit: number): T[] {
    const out: T[] = [];
    const n = Math.min(Math.max(0, Math.floor(limit)), this.count);
    for (let i = 1; i <= n; i++) {
      const item = this.slots[(this.head - i + this.capacity) % this.capacity];
      if (item !== undefined) out.push(item);
    }
    return out;
  }
}
