/** Both adapters refuse a TTL that would create a key that never (or instantly) expires. */
export function assertTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new Error(`CounterStore: ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  }
}
