/**
 * One tenant's approximate nearest-neighbour index (HNSW, usearch) over its chunk embeddings,
 * held in memory by whichever thread searches the tenant, persisted next to the SQLite file.
 *
 * - Keys are chunk `seq`s. SQLite stays the source of truth: the vectors come from
 *   `chunks_vec`, and every candidate the ANN proposes is re-checked (it still exists, the
 *   caller may see it, its exact distance) by the dense leg. A stale or damaged ANN can
 *   therefore only lose recall, never leak or resurrect a chunk.
 * - `seq` is reused after deletes (INTEGER PRIMARY KEY without AUTOINCREMENT), so the index
 *   never trusts "seq > watermark". Triggers append every chunk insert and delete to
 *   `ann_log` (AUTOINCREMENT ids, never reused); a holder remembers the last log id it has
 *   applied (its watermark) and, before each search, re-reads the current vector of every
 *   seq logged since: present → (re)insert, absent → remove.
 * - Persisted as `<file>.ann-<gen>.usearch` plus a sidecar `<file>.ann.json` naming the
 *   generation and its watermark. The sidecar's rename is the one commit point, so a reader
 *   sees an old complete pair or a new complete pair, never an index with another's watermark.
 * - A search thread **views** the saved generation (`usearch` `view`: the file memory-mapped,
 *   never copied), so every thread and process searching the tenant shares one copy in the
 *   page cache and a thread's first search at 1M chunks costs a mapping, not a 1.7 GB read.
 *   A view is immutable: what the log says since its watermark goes to a small in-memory
 *   **delta** index (adds), and every seq logged since is masked in the view (its entry there
 *   is stale or deleted). Past `compactEvery` changes the registry has a builder thread load a
 *   mutable copy, apply the log in place and save the next generation (`AnnIndex.next`).
 * - The service thread trims `ann_log` only below a saved watermark and records how far it
 *   trimmed (`_namespace.ann_log_trimmed`); a holder whose watermark is below that has a gap
 *   and views the newer saved file (or rebuilds).
 */
import type { Database } from "bun:sqlite";
import { readFileSync, rmSync, statSync } from "node:fs";
import usearch, { type Index } from "usearch";
import { digestOf, type Generation, generationRefused, intactGeneration, stampPath } from "./generation-check.ts";
import { commitGeneration, newGeneration, removeSideFiles, sidecarIdentity, sideFiles } from "./side-builds.ts";

/** Bumped when the on-disk layout or the index parameters change: older files are rebuilt. */
export const ANN_VERSION = 1;
/**
 * HNSW parameters. f16 (~1.5 GB per 1M × 768 per copy), not i8 (~0.8 GB): the leg ranks by
 * the index's own distances, and i8's rounding reorders near-ties (measured on clustered
 * 768-d data: i8 recall@10 0.94 at any candidate count, because the graph finds the right
 * neighbours but orders them wrongly). Re-ranking by the exact f32 vectors would fix i8, but
 * a vec0 point lookup costs ~1 ms per row (it reads a whole vector chunk), 100 ms a search.
 */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 64;
/**
 * The search beam (ef). Measured on bench/corpus.ts's 100k derived vectors (256 tight clusters,
 * full of near-ties: the hard case), 40 real questions, unfiltered, vs exact: ef 64 → recall@10
 * 0.63, 128 → 0.81, 256 → 0.89, 512 → 0.97, at 0.4 → 1.4 ms a query. The bench's 100 ACL-scoped
 * queries (bench/documents-search.ts, same corpus, quiet machine) gave 0.94 at 512 and 0.98 at 1024,
 * dense p50 3.3 → 4.7 ms (OpenSearch's dense leg: 27 ms), so 1024. A larger graph needs a wider
 * beam for the same recall: on the 1M corpus (one real base per 250 chunks, 100 ACL-scoped
 * queries) 1024 → 0.947, 1536 → 0.971, 2048 → 0.979, dense p50 14.1 → 17.5 → 21.2 ms, so 1536
 * from 250k chunks on. The leg asks for at least 64 candidates, and usearch searches with
 * max(ef, k). Set when a graph is built or opened, from its size then.
 */
const searchBeam = (size: number): number => (size >= 250_000 ? 1536 : 1024);
/**
 * Changes a viewed index takes in its delta before a builder thread writes the next
 * generation: at least 4,096, an eighth of the index, and at most half the log rows that keep
 * their vectors (LOG_VECTORS_KEPT), so a restarted holder replays them from the log, never
 * one vec0 read per chunk. At 1M chunks a compaction on a builder thread loads the generation in
 * 2.2 s and saves the next in 1.8 s (measured with nothing to apply; the changes add their
 * inserts); searches go on over the view and the delta meanwhile.
 */
export function compactEvery(size: number): number {
  return Math.max(4096, Math.min(Math.floor(size / 8), LOG_VECTORS_KEPT / 2));
}
/** Rows read from `chunks_vec` per `add` call while building. */
const BUILD_BATCH = 8192;

interface Sidecar {
  version: number;
  dim: number;
  /** The SQLite file's identity (index name + creation time): a recreated file is not ours. */
  namespace: string;
  gen: string;
  watermark: number;
  count: number;
  bytes: number;
  /**
   * Chained wyhash of the index file (generation-check.ts `blocks`), checked before `load`:
   * usearch trusts the counts in a file's header, and a damaged one made `load` run for 20 s
   * before failing (measured).
   */
  digest: string;
}

export const sidecarPath = (file: string): string => `${file}.ann.json`;
const indexPath = (file: string, gen: string): string => `${file}.ann-${gen}.usearch`;

/** Every ANN file of `file` (index generations, sidecar, temporaries). */
export const annFiles = (file: string): string[] => sideFiles(file, "ann");

export const removeAnnFiles = (file: string): void => removeSideFiles(file, "ann");

/** The newest `ann_log` id (0 when empty). */
export function logHead(db: Database): number {
  return db.query<{ n: number }, []>("SELECT coalesce(max(id), 0) AS n FROM ann_log").get()?.n ?? 0;
}

/** Log ids at or below this are gone (trimmed by the service thread). */
export function logTrimmed(db: Database): number {
  const v = db.query<{ value: string }, []>("SELECT value FROM _namespace WHERE key = 'ann_log_trimmed'").get();
  return Number(v?.value ?? 0);
}

export function namespaceId(db: Database): string {
  const rows = db
    .query<{ key: string; value: string }, []>(
      "SELECT key, value FROM _namespace WHERE key IN ('index_name', 'created_at') ORDER BY key",
    )
    .all();
  return rows.map((r) => r.value).join("@");
}

/** The saved sidecar when it belongs to this file, width and version; else null. */
export function readSidecar(db: Database, file: string, dim: number): Sidecar | null {
  try {
    const s = JSON.parse(readFileSync(sidecarPath(file), "utf8")) as Sidecar;
    if (s.version !== ANN_VERSION || s.dim !== dim || s.namespace !== namespaceId(db)) return null;
    return s;
  } catch {
    return null; // missing or unreadable: rebuild
  }
}

function newIndex(dim: number, size: number): Index {
  return new usearch.Index({
    metric: usearch.MetricKind.Cos,
    dimensions: dim,
    connectivity: CONNECTIVITY,
    quantization: usearch.ScalarKind.F16,
    expansion_add: EXPANSION_ADD,
    expansion_search: searchBeam(size),
    multi: false,
  });
}

/** A `chunks_vec` blob as the Float32Array it was written from. */
function asVector(blob: Uint8Array): Float32Array {
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** How a saved generation is opened: mapped read-only (search threads) or copied to be changed (builders). */
export type AnnOpen = "view" | "load";

type Scored = { seq: number; distance: number };

/** The `k` nearest keys of `index` with their distances, less those in `masked`. */
function nearest(index: Index, vector: Float32Array, k: number, masked: Set<number> | null, out: Scored[]): void {
  const size = index.size();
  if (size === 0) return;
  const m = index.search(vector, Math.min(k, size), 1);
  for (let i = 0; i < m.keys.length; i++) {
    // usearch pads a short answer with "no key" entries (max u64, infinite distance).
    const distance = m.distances[i] as number;
    const key = m.keys[i] as bigint;
    if (!Number.isFinite(distance) || key > BigInt(Number.MAX_SAFE_INTEGER)) continue;
    const seq = Number(key);
    if (!masked?.has(seq)) out.push({ seq, distance });
  }
}

export class AnnIndex {
  private unsaved = 0;
  /** A view's sidecar identity when it was opened: another commit since supersedes it. */
  private openedAt: string | null = null;
  /** A view's generation file (a scrub may refuse it). */
  private viewedPath = "";
  private readonly sidecar: string;
  /** Viewed base only: chunks added since its watermark, and every seq logged since (stale in the base). */
  private delta: Index | null = null;
  private readonly masked: Set<number> | null;

  private constructor(
    readonly file: string,
    readonly dim: number,
    /** The built or saved graph. Changed in place only when `mutable` (a build, a builder's copy). */
    private readonly base: Index,
    private readonly mutable: boolean,
    private readonly namespace: string,
    private watermark: number,
    private gen: string | null,
  ) {
    this.masked = mutable ? null : new Set();
    this.sidecar = sidecarPath(file);
  }

  get size(): number {
    return this.base.size() + (this.delta?.size() ?? 0);
  }

  /** Whether a saved generation holds this index (false for a fresh build). */
  get saved(): boolean {
    return this.gen !== null;
  }

  /** Changes taken since the base was built or saved (in place, or into the delta of a view). */
  get pending(): number {
    return this.masked ? this.masked.size : this.unsaved;
  }

  /** True when this is a mapped, read-only generation (changes go to the delta). */
  get viewed(): boolean {
    return !this.mutable;
  }

  /**
   * True when a view's generation is no longer the saved one: a builder (any thread or process)
   * has committed the next. Its holder reopens, dropping its delta and its mapping of the
   * unlinked file, whose disk space is then freed once every holder has. One `stat` (~2 µs).
   * A generation a scrub found damaged is superseded too (generation-check.ts).
   */
  superseded(): boolean {
    if (this.mutable) return false;
    return sidecarIdentity(this.sidecar) !== this.openedAt || generationRefused(this.viewedPath);
  }

  /** Builds from every vector in `chunks_vec`; run it inside a read transaction (one snapshot). */
  static build(db: Database, file: string, dim: number, threads: number): AnnIndex {
    const watermark = logHead(db);
    const index = newIndex(dim, chunkCount(db));
    const keys = new BigUint64Array(BUILD_BATCH);
    const vectors = new Float32Array(BUILD_BATCH * dim);
    let n = 0;
    const flush = () => {
      if (n > 0) index.add(keys.subarray(0, n), vectors.subarray(0, n * dim), threads);
      n = 0;
    };
    for (const r of db
      .query<{ seq: number; embedding: Uint8Array }, []>("SELECT seq, embedding FROM chunks_vec")
      .iterate()) {
      keys[n] = BigInt(r.seq);
      vectors.set(new Float32Array(r.embedding.buffer, r.embedding.byteOffset, dim), n * dim);
      n++;
      if (n === BUILD_BATCH) flush();
    }
    flush();
    return new AnnIndex(file, dim, index, true, namespaceId(db), watermark, null);
  }

  /**
   * The saved index, caught up with the log; null when absent, stale, damaged or gapped.
   * `view` (search threads) maps the file; `load` (builders) copies it to change it in place.
   */
  static load(db: Database, file: string, dim: number, how: AnnOpen = "view"): AnnIndex | null {
    // Taken before the read: a commit in between only costs one more reopen, never a missed one.
    const sidecar = sidecarPath(file);
    const openedAt = sidecarIdentity(sidecar);
    const side = readSidecar(db, file, dim);
    if (!side) return null;
    const path = indexPath(file, side.gen);
    try {
      const g: Generation = { path, gen: side.gen, sidecar, bytes: side.bytes, digest: side.digest, method: "blocks" };
      if (!intactGeneration(g)) return null;
      const index = newIndex(dim, side.count);
      if (how === "view") index.view(path);
      else index.load(path);
      if (index.dimensions() !== dim || index.size() !== side.count) return null;
      const ann = new AnnIndex(file, dim, index, how === "load", side.namespace, side.watermark, side.gen);
      ann.openedAt = openedAt;
      ann.viewedPath = path;
      return ann.catchUp(db) ? ann : null;
    } catch {
      return null; // truncated, corrupt or replaced meanwhile: the caller rebuilds or retries
    }
  }

  /**
   * A builder thread's next generation: the saved one copied and caught up with the log in
   * place, or a fresh build when there is none (or it is damaged or gapped). Run it inside a
   * read transaction; the caller saves it.
   */
  static next(db: Database, file: string, dim: number, threads: number): AnnIndex {
    return AnnIndex.load(db, file, dim, "load") ?? AnnIndex.build(db, file, dim, threads);
  }

  /**
   * Applies the log entries past the watermark (in the caller's read transaction). False when
   * entries it needs were trimmed: this copy is unusable and must be reloaded.
   */
  catchUp(db: Database): boolean {
    if (logTrimmed(db) > this.watermark) return false;
    const head = logHead(db);
    if (head <= this.watermark) return true;
    // The last entry per seq decides: a later delete would have logged after the add.
    const latest = db
      .query<{ seq: number; op: string; vec: Uint8Array | null }, [number, number]>(
        `SELECT seq, op, vec FROM ann_log
          WHERE id IN (SELECT max(id) FROM ann_log WHERE id > ? AND id <= ? GROUP BY seq)`,
      )
      .all(this.watermark, head);
    // The index that takes the changes: the base itself, or the view's delta.
    if (!this.mutable) this.delta ??= newIndex(this.dim, 0);
    const target = this.delta ?? this.base;
    for (const r of latest) {
      const key = BigInt(r.seq);
      this.masked?.add(r.seq);
      if (target.contains(key)) target.remove(key);
    }
    const adds = latest.filter((r) => r.op === "add");
    const missing = adds.filter((r) => r.vec === null).map((r) => r.seq);
    // Chunks written without a logged vector (the smoke test's probe, rows past the kept window): read from vec0.
    const fromVec = missing.length
      ? db
          .query<{ seq: number; embedding: Uint8Array }, [string]>(
            "SELECT seq, embedding FROM chunks_vec WHERE seq IN (SELECT value FROM json_each(?))",
          )
          .all(JSON.stringify(missing))
      : [];
    for (const r of adds) if (r.vec) target.add(BigInt(r.seq), asVector(r.vec), 1);
    for (const r of fromVec) target.add(BigInt(r.seq), asVector(r.embedding), 1);
    this.watermark = head;
    if (this.mutable) this.unsaved += latest.length;
    return true;
  }

  /** The `k` nearest keys (seqs), nearest first. */
  search(vector: Float32Array, k: number): number[] {
    return this.scored(vector, k).map((m) => m.seq);
  }

  /**
   * The `k` nearest keys with the index's (quantised) cosine distance: the base's, less the
   * seqs masked since it was saved, merged with the delta's. Fewer than `k` when masked ones
   * were among the base's nearest; the dense leg asks again with a larger `k`, as for the ACL.
   */
  scored(vector: Float32Array, k: number): Scored[] {
    const out: Scored[] = [];
    nearest(this.base, vector, k, this.masked, out);
    if (this.delta && this.delta.size() > 0) {
      nearest(this.delta, vector, k, null, out);
      out.sort((a, b) => a.distance - b.distance);
      if (out.length > k) out.length = k;
    }
    return out;
  }

  /** Writes a new generation and commits it by renaming the sidecar; the old one is removed. */
  save(): void {
    if (!this.mutable) throw new Error("a viewed ANN index is saved by a builder thread (AnnIndex.next)");
    const gen = newGeneration();
    const path = indexPath(this.file, gen);
    this.base.save(path);
    const side: Sidecar = {
      version: ANN_VERSION,
      dim: this.dim,
      namespace: this.namespace,
      gen,
      watermark: this.watermark,
      count: this.base.size(),
      bytes: statSync(path).size,
      digest: digestOf(path, "blocks"),
    };
    commitGeneration(this.sidecar, path, side);
    // Threads still viewing the old generation keep their mapping (unlinking does not unmap).
    if (this.gen) {
      rmSync(indexPath(this.file, this.gen), { force: true });
      rmSync(stampPath(indexPath(this.file, this.gen)), { force: true });
    }
    this.gen = gen;
    this.unsaved = 0;
  }
}

/**
 * Vectors kept in the newest log rows (~50 MB at 768-d). Older rows keep their seq and op but
 * drop the vector (a holder that far behind reads it from vec0, slowly), so a bulk load into a
 * tenant whose index is not saved yet does not store every vector twice.
 */
const LOG_VECTORS_KEPT = 16_384;

/** In the writer's transaction: drops the vectors of log rows that left the kept window since `headBefore`. */
export function boundLoggedVectors(db: Database, headBefore: number): void {
  const head = logHead(db);
  if (head <= LOG_VECTORS_KEPT) return;
  db.query("UPDATE ann_log SET vec = NULL WHERE id > ? AND id <= ?").run(
    headBefore - LOG_VECTORS_KEPT,
    head - LOG_VECTORS_KEPT,
  );
}

/** Chunks of the tenant (from the document rows: documents are few, chunks many). */
export function chunkCount(db: Database): number {
  return db.query<{ n: number }, []>("SELECT coalesce(sum(chunk_count), 0) AS n FROM documents").get()?.n ?? 0;
}

/** Log rows kept before the service thread trims. */
const TRIM_AT = 4096;

/**
 * Trims `ann_log` below what a saved index covers (service thread, after a write). Without a
 * saved index and below `minChunks` no holder needs the log (a build starts from the table).
 * `keepAbove`: the saved keyword index's watermark (keyword-index.ts reads the log too), if any.
 */
export function trimAnnLog(db: Database, file: string, dim: number, minChunks: number, keepAbove?: number): void {
  const bounds = db
    .query<{ lo: number | null; hi: number | null }, []>("SELECT min(id) AS lo, max(id) AS hi FROM ann_log")
    .get();
  if (!bounds || bounds.lo === null || bounds.hi === null || bounds.hi - bounds.lo < TRIM_AT) return;
  const side = readSidecar(db, file, dim);
  const annUpTo = side ? side.watermark : chunkCount(db) < minChunks ? bounds.hi : 0;
  const upTo = keepAbove === undefined ? annUpTo : Math.min(annUpTo, keepAbove);
  if (upTo < bounds.lo) return;
  db.transaction(() => {
    db.query("DELETE FROM ann_log WHERE id <= ?").run(upTo);
    db.query(
      `INSERT INTO _namespace (key, value) VALUES ('ann_log_trimmed', ?)
       ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`,
    ).run(String(upTo));
  }).immediate();
}
