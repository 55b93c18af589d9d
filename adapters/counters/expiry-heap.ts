/**
 * A binary min-heap of (expiresAt, key) pairs. The memory counter store keeps exactly one
 * entry per live key, so the heap's top is both the next key to sweep and the key to
 * evict when the store is full, each in O(log n) instead of a scan over every key.
 */
export interface ExpiryEntry {
  expiresAt: number;
  key: string;
}

export class ExpiryHeap {
  private readonly items: ExpiryEntry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): ExpiryEntry | undefined {
    return this.items[0];
  }

  push(entry: ExpiryEntry): void {
    const items = this.items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.at(parent).expiresAt <= entry.expiresAt) break;
      items[i] = this.at(parent);
      i = parent;
    }
    items[i] = entry;
  }

  pop(): ExpiryEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    const n = items.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.at(right).expiresAt < this.at(left).expiresAt ? right : left;
      if (this.at(child).expiresAt >= last.expiresAt) break;
      items[i] = this.at(child);
      i = child;
    }
    items[i] = last;
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }

  private at(i: number): ExpiryEntry {
    // Indices are always in range here; the check keeps noUncheckedIndexedAccess honest.
    const e = this.items[i];
    if (e === undefined) throw new Error(`ExpiryHeap: index ${i} out of range`);
    return e;
  }
}
