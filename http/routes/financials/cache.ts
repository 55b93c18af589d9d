/**
 * A bounded cache of serialised financial responses. The data is public and global (no
 * tenant filter applies), changes only when an ingest writes, and the same few companies
 * are read over and over, so a hit skips the query and the JSON encoding entirely.
 *
 * An entry is valid while the store's generation is unchanged (local writes invalidate at
 * once; the generation is captured before the read, so a read overlapping a write is never
 * kept) and for at most `ttlMs` (bounds staleness when another instance ingests into the
 * shared database). Least-recently-used entries are evicted past `maxEntries` or `maxBytes`.
 */
export interface ResponseCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
  ttlMs?: number;
  /** The store's change counter; undefined means "never changes locally" (TTL only). */
  generation?: () => number;
  now?: () => number;
}

interface Entry {
  /** UTF-8 bytes, encoded once (responses are sent many times). */
  body: Uint8Array<ArrayBuffer>;
  generation: number;
  at: number;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly ttlMs: number;
  private readonly generation: () => number;
  private readonly now: () => number;

  constructor(opts: ResponseCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 2_000;
    this.maxBytes = opts.maxBytes ?? 32 * 1024 * 1024;
    this.ttlMs = opts.ttlMs ?? 10_000;
    this.generation = opts.generation ?? (() => 0);
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Capture before reading the data an entry will hold. */
  currentGeneration(): number {
    return this.generation();
  }

  get(key: string): Uint8Array<ArrayBuffer> | null {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.generation !== this.generation() || this.now() - e.at > this.ttlMs) {
      this.delete(key, e);
      return null;
    }
    // Re-insert: Map order is the recency order.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.body;
  }

  set(key: string, body: Uint8Array<ArrayBuffer>, generation: number): void {
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    if (body.byteLength > this.maxBytes || generation !== this.generation()) return;
    this.entries.set(key, { body, generation, at: this.now() });
    this.bytes += body.byteLength;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.delete(k, e);
    }
  }

  private delete(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.body.byteLength;
  }
}

/**
 * Serves `load()` as JSON through a response cache. The caller's key is the resource and
 * the validated query (normalised CIK, defaults applied), never anything tenant-specific:
 * the data is the same for every caller.
 */
export type CachedJson = (key: string, load: () => Promise<unknown>) => Promise<never>;

export function cachedJson(cache: ResponseCache): CachedJson {
  return async (key, load) => {
    let body = cache.get(key);
    if (body === null) {
      const gen = cache.currentGeneration();
      body = new TextEncoder().encode(JSON.stringify(await load()));
      cache.set(key, body, gen);
    }
    // Already-serialised JSON of the route's 200 schema; OpenAPIHono types JSON bodies only
    // through c.json, which would encode it again.
    return new Response(body, { status: 200, headers: { "content-type": "application/json" } }) as never;
  };
}
