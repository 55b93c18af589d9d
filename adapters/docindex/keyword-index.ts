/**
 * One tenant's keyword index beside FTS5: the same postings in flat arrays (keyword-file.ts), so
 * the keyword leg scores a query's chunks in a tight loop instead of FTS5's bm25() call per
 * matching row.
 *
 * FTS5 has no top-k pruning and evaluates bm25() through its auxiliary-function API once per
 * chunk holding a query term: ~400k calls a query at 1M chunks, 3–5× OpenSearch (docs/search.md).
 * The scores here are FTS5's own, term for term: `fts5Bm25Function` (k1 1.2, b 0.75; the IDF
 * log((N − n + ½)/(n + ½)) clamped to 1e-6, n counted over the whole index; N and the average
 * length from FTS5's averages record; a chunk's length from its docsize row) with the same
 * operations in the same order, so a chunk's score is the same double and the two paths rank
 * alike (keyword-index.test.ts compares them on every query). FTS5 stays the source of truth:
 *
 * - The file is built from FTS5 itself, so its terms are the table's porter/unicode61 tokens; a
 *   query term becomes its token through FTS5's tokenizer (fts5-reads.ts `ftsTokens`), and a
 *   term that is not exactly one token (a phrase to FTS5) leaves the query to FTS5.
 * - Changes since the build come from `ann_log` (every chunk insert and delete, by trigger): a
 *   chunk logged since the watermark is no longer read from here. A new chunk (seq above the
 *   built range) is scored by FTS5 over that rowid range, with the same IDF, and merged. A seq
 *   reused below the range, or a log trimmed past the watermark, makes the index unusable until
 *   it is rebuilt (the registry rebuilds it; FTS5 answers meanwhile).
 */
import type { Database } from "bun:sqlite";
import { logHead, logTrimmed } from "./ann-index.ts";
import { averages, type Bm25Row, ftsAmong, ftsCountFrom, ftsTokens, ftsTop, type SeqRange } from "./fts5-reads.ts";
import { generationRefused } from "./generation-check.ts";
import {
  binPath,
  buildKeywordFile,
  type KeywordFile,
  keywordSidecarPath,
  lowerBound,
  mapKeywordFile,
} from "./keyword-file.ts";
import { sidecarIdentity } from "./side-builds.ts";

// fts5_aux.c, fts5Bm25Function.
const K1 = 1.2;
const B = 0.75;
/** Term counts kept per log head (distinct query tokens; cleared when full). */
const MAX_KNOWN_DF = 65_536;

/** What a held index knows of the log past its watermark (recomputed when the log moves). */
interface Drift {
  head: number;
  /** Ordinals of chunks logged since the build (deleted or replaced): never read from here. */
  dead: Int32Array;
  /** Some chunk was added above the built range: FTS5 scores that range. */
  fresh: boolean;
  /** Chunks per query term at this log head (the pruning and the scoring both ask). */
  df: Map<string, number>;
}

export class KeywordIndex {
  readonly watermark: number;
  /** The sidecar and this generation's file: `superseded` checks them on every search. */
  private readonly sidecar: string;
  private readonly path: string;
  private readonly terms = new Map<string, number>();
  private readonly seqs: Int32Array;
  private readonly lengths: Uint32Array;
  private readonly termStart: Uint32Array;
  private readonly ords: Int32Array;
  private readonly tfs: Uint16Array;
  private acc: Float64Array | null = null;
  private touched: Int32Array | null = null;
  private deadMark: Uint8Array | null = null;
  private onlyMark: Uint8Array | null = null;
  private drift: Drift;

  private constructor(
    readonly file: string,
    f: KeywordFile,
    /** The sidecar's identity when this generation was opened: another commit since supersedes it. */
    private readonly openedAt: string | null,
  ) {
    this.sidecar = keywordSidecarPath(file);
    this.path = binPath(file, f.side.gen);
    this.watermark = f.side.watermark;
    this.seqs = f.seqs;
    this.lengths = f.lengths;
    this.termStart = f.termStart;
    this.ords = f.ords;
    this.tfs = f.tfs;
    const dec = new TextDecoder();
    for (let i = 0; i < f.side.terms; i++) {
      this.terms.set(dec.decode(f.termBytes.subarray(f.termByteStart[i], f.termByteStart[i + 1])), i);
    }
    this.drift = { head: this.watermark, dead: new Int32Array(0), fresh: false, df: new Map() };
  }

  /**
   * Builds and saves the index for what `db` reads now (inside a read transaction); null when
   * FTS5's content is beyond the file's format (keyword-file.ts).
   */
  static build(db: Database, file: string): KeywordIndex | null {
    const f = buildKeywordFile(db, file);
    return f ? new KeywordIndex(file, f, sidecarIdentity(keywordSidecarPath(file))) : null;
  }

  /** The saved index of `file` (mapped, not read), or null when absent, stale or damaged. */
  static load(db: Database, file: string): KeywordIndex | null {
    // Taken before the read: a commit in between only costs one more reopen, never a missed one.
    const openedAt = sidecarIdentity(keywordSidecarPath(file));
    const f = mapKeywordFile(db, file);
    return f ? new KeywordIndex(file, f, openedAt) : null;
  }

  /**
   * True when another generation has been committed since this one was opened (by any thread or
   * process), or a scrub found this one damaged (generation-check.ts): its holder maps the saved
   * one instead. One `stat`.
   */
  superseded(): boolean {
    return sidecarIdentity(this.sidecar) !== this.openedAt || generationRefused(this.path);
  }

  get rows(): number {
    return this.seqs.length;
  }

  /** The highest rowid the build read (0 when empty). */
  get maxSeq(): number {
    return this.seqs.length > 0 ? (this.seqs[this.seqs.length - 1] as number) : 0;
  }

  /** Log entries written since the build (the registry rebuilds past a share of the index). */
  pendingOf(db: Database): number {
    return logHead(db) - this.watermark;
  }

  /**
   * Whether this index can answer for the caller's snapshot: false when the log was trimmed
   * past its watermark or a seq it holds was reused since (the registry then rebuilds).
   * Call inside the search's read transaction.
   */
  usable(db: Database): boolean {
    if (logTrimmed(db) > this.watermark) return false;
    const head = logHead(db);
    if (head === this.drift.head) return true;
    const logged = db
      .query<{ seq: number; live: number }, [number, number]>(
        `SELECT l.seq, EXISTS (SELECT 1 FROM chunks c WHERE c.seq = l.seq) AS live
           FROM (SELECT DISTINCT seq FROM ann_log WHERE id > ? AND id <= ?) l`,
      )
      .all(this.watermark, head);
    const max = this.maxSeq;
    const dead: number[] = [];
    let fresh = false;
    for (const r of logged) {
      if (r.seq > max) {
        fresh = true;
        continue;
      }
      if (r.live) return false; // a seq this index holds now names another chunk
      const o = this.ordOf(r.seq);
      if (o >= 0) dead.push(o);
    }
    const mark = this.marks();
    for (const o of this.drift.dead) mark[o] = 0;
    for (const o of dead) mark[o] = 1;
    this.drift = { head, dead: Int32Array.from(dead).sort(), fresh, df: new Map() };
    return true;
  }

  /** Chunks holding `term` (a query term) in the caller's snapshot; null when FTS5 must count. */
  df(db: Database, term: string): number | null {
    const tok = ftsTokens([term]);
    return tok ? this.dfOfToken(db, term, tok[0] as string) : null;
  }

  /**
   * The best `limit` chunks with rowids in `range` for the OR of `terms` (query terms, in query
   * order), as FTS5's bm25() rows sorted best first; null when FTS5 must answer (a term is not
   * one token). `only`: the rowids of the chunks that may be returned (a selective filter),
   * scored alone. After `usable` in the same snapshot.
   */
  top(db: Database, terms: string[], limit: number, range: SeqRange, only?: number[]): Bm25Row[] | null {
    const toks = ftsTokens(terms);
    if (!toks) return null;
    const allowed = only ? this.mask(only) : null;
    let best: Bm25Row[];
    try {
      best = this.scored(db, terms, toks, limit, range, allowed?.mark ?? null);
    } finally {
      if (allowed) for (const o of allowed.ords) allowed.mark[o] = 0;
    }
    if (!this.drift.fresh || range.hi <= this.maxSeq) return best;
    // Chunks added since the build: FTS5 over their rowids (its IDF counts the whole index too).
    const fresh = { lo: Math.max(range.lo, this.maxSeq + 1), hi: range.hi };
    const added = only
      ? ftsAmong(
          db,
          terms,
          limit,
          only.filter((seq) => seq >= fresh.lo && seq <= fresh.hi),
        )
      : ftsTop(db, terms, limit, fresh);
    return [...best, ...added].sort((x, y) => x.score - y.score || x.seq - y.seq).slice(0, limit);
  }

  /** This index's best `limit` in `range` (only ordinals marked in `allowed`, if given). */
  private scored(
    db: Database,
    terms: string[],
    toks: string[],
    limit: number,
    range: SeqRange,
    allowed: Uint8Array | null,
  ): Bm25Row[] {
    const avg = averages(db);
    const avgdl = avg.tokens / avg.rows;
    const acc = this.accumulator();
    const touched = this.touchedList();
    const mark = this.drift.dead.length > 0 ? this.marks() : null;
    const oLo = lowerBound(this.seqs, 0, this.seqs.length, range.lo);
    const oHi = lowerBound(this.seqs, 0, this.seqs.length, range.hi + 1); // exclusive
    let n = 0;
    for (let i = 0; i < toks.length; i++) {
      const tok = toks[i] as string;
      const nHit = this.dfOfToken(db, terms[i] as string, tok);
      let idf = Math.log((avg.rows - nHit + 0.5) / (nHit + 0.5));
      if (idf <= 0.0) idf = 1e-6;
      const t = this.terms.get(tok);
      if (t === undefined) continue;
      const end = this.termStart[t + 1] as number;
      let p = lowerBound(this.ords, this.termStart[t] as number, end, oLo);
      for (; p < end; p++) {
        const o = this.ords[p] as number;
        if (o >= oHi) break;
        if (mark !== null && mark[o] === 1) continue;
        if (allowed !== null && allowed[o] === 0) continue;
        const f = this.tfs[p] as number;
        const D = this.lengths[o] as number;
        // The expression of fts5Bm25Function, operation for operation.
        const s = idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * D) / avgdl)));
        if (acc[o] === 0) touched[n++] = o;
        acc[o] = (acc[o] as number) + s;
      }
    }
    const best = bestOf(acc, touched, n, limit, this.seqs);
    for (let i = 0; i < n; i++) acc[touched[i] as number] = 0;
    return best;
  }

  /** FTS5's n for `term` (its token `tok`) in the caller's snapshot, once per log head. */
  private dfOfToken(db: Database, term: string, tok: string): number {
    const known = this.drift.df.get(tok);
    if (known !== undefined) return known;
    const t = this.terms.get(tok);
    let n = 0;
    if (t !== undefined) {
      const start = this.termStart[t] as number;
      const end = this.termStart[t + 1] as number;
      n = end - start;
      for (const o of this.drift.dead) {
        const at = lowerBound(this.ords, start, end, o);
        if (at < end && this.ords[at] === o) n--;
      }
    }
    if (this.drift.fresh) n += ftsCountFrom(db, term, this.maxSeq + 1);
    if (this.drift.df.size >= MAX_KNOWN_DF) this.drift.df.clear();
    this.drift.df.set(tok, n);
    return n;
  }

  /** The ordinals of `seqs` marked in a per-index array (cleared by the caller). */
  private mask(seqs: number[]): { mark: Uint8Array; ords: number[] } {
    this.onlyMark ??= new Uint8Array(this.rows);
    const ords: number[] = [];
    for (const seq of seqs) {
      const o = this.ordOf(seq);
      if (o < 0) continue;
      this.onlyMark[o] = 1;
      ords.push(o);
    }
    return { mark: this.onlyMark, ords };
  }

  private ordOf(seq: number): number {
    const at = lowerBound(this.seqs, 0, this.seqs.length, seq);
    return at < this.seqs.length && this.seqs[at] === seq ? at : -1;
  }

  private accumulator(): Float64Array {
    this.acc ??= new Float64Array(this.rows);
    return this.acc;
  }

  private touchedList(): Int32Array {
    this.touched ??= new Int32Array(this.rows);
    return this.touched;
  }

  private marks(): Uint8Array {
    this.deadMark ??= new Uint8Array(this.rows);
    return this.deadMark;
  }
}

/** The `limit` best touched rows (highest accumulated score; the lower rowid on a tie). */
function bestOf(acc: Float64Array, touched: Int32Array, n: number, limit: number, seqs: Int32Array): Bm25Row[] {
  if (limit <= 0 || n === 0) return [];
  // A bounded min-heap of ordinals, worst at the root.
  const heap = new Int32Array(Math.min(limit, n));
  let size = 0;
  const worse = (a: number, b: number) => {
    const sa = acc[a] as number;
    const sb = acc[b] as number;
    return sa < sb || (sa === sb && a > b);
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && worse(heap[l] as number, heap[m] as number)) m = l;
      if (r < size && worse(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      const tmp = heap[i] as number;
      heap[i] = heap[m] as number;
      heap[m] = tmp;
      i = m;
    }
  };
  for (let i = 0; i < n; i++) {
    const o = touched[i] as number;
    if (size < heap.length) {
      let j = size++;
      heap[j] = o;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (!worse(heap[j] as number, heap[parent] as number)) break;
        const tmp = heap[j] as number;
        heap[j] = heap[parent] as number;
        heap[parent] = tmp;
        j = parent;
      }
    } else if (worse(heap[0] as number, o)) {
      heap[0] = o;
      down(0);
    }
  }
  return Array.from(heap.subarray(0, size))
    .sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0))
    .map((o) => ({ seq: seqs[o] as number, score: -1.0 * (acc[o] as number) }));
}
