/**
 * One tenant's keyword index beside FTS5: the same postings in flat arrays, so the keyword leg
 * scores a query's chunks in a tight loop instead of FTS5's bm25() call per matching row.
 *
 * FTS5 has no top-k pruning and evaluates bm25() through its auxiliary-function API once per
 * chunk holding a query term: ~400k calls a query at 1M chunks, 3–5× OpenSearch (docs/search.md).
 * The scores here are FTS5's own, term for term: `fts5Bm25Function` (k1 1.2, b 0.75; the IDF
 * log((N − n + ½)/(n + ½)) clamped to 1e-6, n counted over the whole index; N and the average
 * length from FTS5's averages record; a chunk's length from its docsize row) with the same
 * operations in the same order, so a chunk's score is the same double and the two paths rank
 * alike (keyword-index.test.ts compares them on every query). FTS5 stays the source of truth:
 *
 * - Built from FTS5 itself (fts5vocab `instance` in one read snapshot), so its terms are the
 *   porter/unicode61 tokens of the table, and a query term is turned into its token by an FTS5
 *   table of the same tokenizer (`tokens`); a term that is not exactly one token (a phrase to
 *   FTS5) leaves the query to FTS5.
 * - Persisted as `<file>.kw-<gen>.bin` plus `<file>.kw.json` (watermark, size, digest; its
 *   rename is the commit point, as for the HNSW sidecar) and mapped read-only (`Bun.mmap`), so
 *   every search thread shares one copy through the page cache.
 * - Changes since the build come from `ann_log` (every chunk insert and delete, by trigger): a
 *   chunk logged since the watermark is no longer read from here. A new chunk (seq above the
 *   built range) is scored by FTS5 over that rowid range, with the same IDF, and merged. A seq
 *   reused below the range, or a log trimmed past the watermark, makes the index unusable until
 *   it is rebuilt (the registry rebuilds it; FTS5 answers meanwhile).
 */
import { Database } from "bun:sqlite";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { logHead, logTrimmed, namespaceId } from "./ann-index.ts";
import { removeSideFiles, sideFiles } from "./side-builds.ts";

/** Bumped when the file layout changes: older files are rebuilt. */
export const KW_VERSION = 1;

// fts5_aux.c, fts5Bm25Function.
const K1 = 1.2;
const B = 0.75;

/** A chunk's FTS5 bm25() row: `score` is FTS5's (lower is better). */
export interface Bm25Row {
  seq: number;
  score: number;
}

/** Chunk rowids, both ends included. */
export interface RowidRange {
  lo: number;
  hi: number;
}

interface KwSidecar {
  version: number;
  namespace: string;
  gen: string;
  watermark: number;
  rows: number;
  terms: number;
  postings: number;
  bytes: number;
  digest: string;
}

export const keywordSidecarPath = (file: string): string => `${file}.kw.json`;
const binPath = (file: string, gen: string): string => `${file}.kw-${gen}.bin`;

/** Every keyword-index file of `file` (generations, sidecar, temporaries). */
export const keywordFiles = (file: string): string[] => sideFiles(file, "kw");

export const removeKeywordFiles = (file: string): void => removeSideFiles(file, "kw");

/** The saved sidecar when it belongs to this file and version; else null. */
export function readKeywordSidecar(db: Database, file: string): KwSidecar | null {
  try {
    const s = JSON.parse(readFileSync(keywordSidecarPath(file), "utf8")) as KwSidecar;
    return s.version === KW_VERSION && s.namespace === namespaceId(db) ? s : null;
  } catch {
    return null;
  }
}

/** SQLite's varint (FTS5 uses it in its records): the value and the offset after it. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i] as number;
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [v, at + i + 1];
  }
  return [v * 256 + (b[at + 8] as number), at + 9];
}

/** Every varint of a record, summed (a docsize row: tokens per column; one column here). */
function varintSum(b: Uint8Array): number {
  let sum = 0;
  let at = 0;
  while (at < b.length) {
    const [v, next] = varint(b, at);
    sum += v;
    at = next;
  }
  return sum;
}

/** FTS5's row count and total tokens (its averages record), as bm25() reads them. */
function averages(db: Database): { rows: number; tokens: number } {
  const r = db.query<{ block: Uint8Array }, []>("SELECT block FROM chunks_fts_data WHERE id = 1").get();
  if (!r || r.block.length === 0) return { rows: 0, tokens: 0 };
  const [rows, at] = varint(r.block, 0);
  return { rows, tokens: varintSum(r.block.subarray(at)) };
}

/** Query terms → FTS5 tokens, by an FTS5 table with the index's tokenizer (one per thread). */
class Tokens {
  private db: Database | null = null;
  private readonly known = new Map<string, string | null>();
  private static readonly MAX_KNOWN = 65_536;

  /** The token of each term, or null when some term is not exactly one token. */
  of(terms: string[]): string[] | null {
    const out: string[] = [];
    const unknown = terms.filter((t) => !this.known.has(t));
    if (unknown.length > 0) this.learn(unknown);
    for (const t of terms) {
      const tok = this.known.get(t);
      if (tok == null) return null;
      out.push(tok);
    }
    return out;
  }

  private learn(terms: string[]): void {
    if (this.known.size + terms.length > Tokens.MAX_KNOWN) this.known.clear();
    const db = this.open();
    const found = db.transaction(() => {
      const put = db.query("INSERT INTO t (rowid, x) VALUES (?, ?)");
      for (const [i, t] of terms.entries()) put.run(i + 1, t);
      const rows = db.query<{ doc: number; term: string }, []>("SELECT doc, term FROM v").all();
      db.exec("DELETE FROM t");
      return rows;
    })();
    const byDoc = new Map<number, string[]>();
    for (const r of found) byDoc.set(r.doc, [...(byDoc.get(r.doc) ?? []), r.term]);
    terms.forEach((t, i) => {
      const toks = byDoc.get(i + 1);
      this.known.set(t, toks?.length === 1 ? (toks[0] as string) : null);
    });
  }

  private open(): Database {
    if (!this.db) {
      const db = new Database(":memory:");
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61');
               CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
      this.db = db;
    }
    return this.db;
  }
}

const tokens = new Tokens();

/** What a held index knows of the log past its watermark (recomputed when the log moves). */
interface Drift {
  head: number;
  /** Ordinals of chunks logged since the build (deleted or replaced): never read from here. */
  dead: Int32Array;
  /** Some chunk was added above the built range: FTS5 scores that range. */
  fresh: boolean;
}

export class KeywordIndex {
  private readonly terms: Map<string, number>;
  private acc: Float64Array | null = null;
  private touched: Int32Array | null = null;
  private deadMark: Uint8Array | null = null;
  private onlyMark: Uint8Array | null = null;
  private drift: Drift;

  private constructor(
    readonly file: string,
    readonly watermark: number,
    private readonly seqs: Int32Array,
    private readonly lengths: Uint32Array,
    private readonly termStart: Uint32Array,
    private readonly ords: Int32Array,
    private readonly tfs: Uint16Array,
    termByteStart: Uint32Array,
    termBytes: Uint8Array,
  ) {
    this.terms = new Map();
    const dec = new TextDecoder();
    for (let i = 0; i + 1 < termByteStart.length; i++) {
      this.terms.set(dec.decode(termBytes.subarray(termByteStart[i], termByteStart[i + 1])), i);
    }
    this.drift = { head: watermark, dead: new Int32Array(0), fresh: false };
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
   * Builds the file for what `db` reads now (call inside a read transaction: one snapshot) and
   * commits it; returns the saved index, or null when FTS5's layout is beyond this format (a
   * rowid above 2³¹ or a term more than 65,535 times in one chunk).
   */
  static build(db: Database, file: string): KeywordIndex | null {
    const watermark = logHead(db);
    const sizes = db
      .query<{ id: number; sz: Uint8Array }, []>("SELECT id, sz FROM chunks_fts_docsize ORDER BY id")
      .all();
    const rows = sizes.length;
    if (rows > 0 && (sizes[rows - 1] as { id: number }).id > 0x7fffffff) return null;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.kw_rows USING fts5vocab(main, chunks_fts, row);
             CREATE VIRTUAL TABLE IF NOT EXISTS temp.kw_inst USING fts5vocab(main, chunks_fts, instance);`);
    try {
      const shape = db
        .query<{ terms: number; pairs: number; bytes: number }, []>(
          "SELECT count(*) AS terms, coalesce(sum(doc), 0) AS pairs, coalesce(sum(length(CAST(term AS BLOB))), 0) AS bytes FROM temp.kw_rows",
        )
        .get() ?? { terms: 0, pairs: 0, bytes: 0 };
      const layout = layoutOf(rows, shape.terms, shape.pairs, shape.bytes);
      const buf = new Uint8Array(layout.total);
      const v = views(buf, layout);
      const maxSeq = rows > 0 ? (sizes[rows - 1] as { id: number }).id : 0;
      sizes.forEach((s, i) => {
        v.seqs[i] = s.id;
        v.lengths[i] = varintSum(s.sz);
      });
      const ordOf = ordinals(v.seqs, maxSeq);
      const enc = new TextEncoder();
      let term = -1;
      let last: string | null = null;
      let lastDoc = -1;
      let p = -1;
      let bytes = 0;
      for (const { term: t, doc } of db
        .query<{ term: string; doc: number }, []>("SELECT term, doc FROM temp.kw_inst")
        .iterate()) {
        if (t !== last) {
          term++;
          v.termStart[term] = p + 1;
          v.termByteStart[term] = bytes;
          bytes += enc.encodeInto(t, v.termBytes.subarray(bytes)).written;
          last = t;
          lastDoc = -1;
        }
        if (doc !== lastDoc) {
          // The scoring loop seeks ordinals by binary search: a term's chunks must ascend.
          if (doc < lastDoc) throw new Error(`keyword index: FTS5 listed "${t}" out of rowid order`);
          p++;
          v.ords[p] = ordOf(doc);
          v.tfs[p] = 0;
          lastDoc = doc;
        }
        if (v.tfs[p] === 0xffff) return null;
        v.tfs[p] = (v.tfs[p] as number) + 1;
      }
      v.termStart[term + 1] = p + 1;
      v.termByteStart[term + 1] = bytes;
      if (term + 1 !== shape.terms || p + 1 !== shape.pairs) {
        throw new Error(
          `keyword index: read ${term + 1} terms / ${p + 1} postings, FTS5 lists ${shape.terms} / ${shape.pairs}`,
        );
      }
      const side = save(file, buf, {
        version: KW_VERSION,
        namespace: namespaceId(db),
        watermark,
        rows,
        terms: shape.terms,
        postings: shape.pairs,
        bytes: buf.length,
      });
      return KeywordIndex.fromBuffer(file, side, buf);
    } finally {
      db.exec("DROP TABLE IF EXISTS temp.kw_rows; DROP TABLE IF EXISTS temp.kw_inst;");
    }
  }

  /** The saved index of `file` (mapped, not read), or null when absent, stale or damaged. */
  static load(db: Database, file: string): KeywordIndex | null {
    const side = readKeywordSidecar(db, file);
    if (!side) return null;
    try {
      const buf = Bun.mmap(binPath(file, side.gen), { shared: false });
      if (buf.length !== side.bytes || Bun.hash(buf).toString(16) !== side.digest) return null;
      return KeywordIndex.fromBuffer(file, side, buf);
    } catch {
      return null; // missing or unreadable: the caller rebuilds
    }
  }

  private static fromBuffer(file: string, side: KwSidecar, buf: Uint8Array): KeywordIndex | null {
    const v = views(buf, layoutOf(side.rows, side.terms, side.postings, -1));
    // Bounds the loops trust: offsets rise within the arrays, ordinals name rows.
    const ts = v.termStart;
    if (side.terms > 0 && (ts[0] !== 0 || ts[side.terms] !== side.postings)) return null;
    for (let i = 0; i < side.terms; i++) if ((ts[i] as number) > (ts[i + 1] as number)) return null;
    for (let i = 0; i < side.terms; i++) {
      if ((v.termByteStart[i] as number) > (v.termByteStart[i + 1] as number)) return null;
    }
    if ((v.termByteStart[side.terms] as number) > v.termBytes.length) return null;
    return new KeywordIndex(
      file,
      side.watermark,
      v.seqs,
      v.lengths,
      v.termStart,
      v.ords,
      v.tfs,
      v.termByteStart,
      v.termBytes,
    );
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
    this.drift = { head, dead: Int32Array.from(dead).sort(), fresh };
    return true;
  }

  /** Chunks holding `term` (a query term) in the caller's snapshot; null when FTS5 must count. */
  df(db: Database, term: string): number | null {
    const tok = tokens.of([term]);
    return tok ? this.dfOfToken(db, term, tok[0] as string) : null;
  }

  /**
   * The best `limit` chunks with rowids in `range` for the OR of `terms` (query terms, in query
   * order), as FTS5's bm25() rows sorted best first; null when FTS5 must answer (a term is not
   * one token). `only`: the rowids of the chunks that may be returned (a selective filter),
   * scored alone. After `usable` in the same snapshot.
   */
  top(db: Database, terms: string[], limit: number, range: RowidRange, only?: number[]): Bm25Row[] | null {
    const toks = tokens.of(terms);
    if (!toks) return null;
    const allowed = only ? this.mask(only) : null;
    try {
      return this.scored(db, terms, toks, limit, range, allowed, only);
    } finally {
      if (allowed) for (const o of allowed.ords) allowed.mark[o] = 0;
    }
  }

  private scored(
    db: Database,
    terms: string[],
    toks: string[],
    limit: number,
    range: RowidRange,
    allowed: { mark: Uint8Array; ords: number[] } | null,
    only: number[] | undefined,
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
        if (allowed !== null && allowed.mark[o] === 0) continue;
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

  private dfOfToken(db: Database, term: string, tok: string): number {
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
    if (this.drift.fresh) {
      n +=
        db
          .query<{ n: number }, { m: string; lo: number }>(
            "SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH :m AND rowid >= :lo",
          )
          .get({ m: `"${term}"`, lo: this.maxSeq + 1 })?.n ?? 0;
    }
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

const FTS_TOP_SQL = `
  SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts
   WHERE chunks_fts MATCH :match AND rowid BETWEEN :lo AND :hi
   ORDER BY score LIMIT :limit`;

function ftsTop(db: Database, terms: string[], limit: number, range: RowidRange): Bm25Row[] {
  const match = terms.map((t) => `"${t}"`).join(" OR ");
  return db.query<Bm25Row, Record<string, string | number>>(FTS_TOP_SQL).all({ match, limit, ...range });
}

/** seq → ordinal while building: a direct table when the rowids are dense enough, else a search. */
function ordinals(seqs: Int32Array, maxSeq: number): (seq: number) => number {
  if (maxSeq > 4 * seqs.length + 1_000_000) {
    return (seq) => lowerBound(seqs, 0, seqs.length, seq);
  }
  const table = new Int32Array(maxSeq + 1);
  seqs.forEach((seq, i) => {
    table[seq] = i;
  });
  return (seq) => table[seq] as number;
}

const FTS_AMONG_SQL = `
  SELECT rowid AS seq, bm25(chunks_fts) AS score FROM chunks_fts
   WHERE chunks_fts MATCH :match AND rowid IN (SELECT value FROM json_each(:seqs))
   ORDER BY score LIMIT :limit`;

function ftsAmong(db: Database, terms: string[], limit: number, seqs: number[]): Bm25Row[] {
  if (seqs.length === 0) return [];
  const match = terms.map((t) => `"${t}"`).join(" OR ");
  return db
    .query<Bm25Row, Record<string, string | number>>(FTS_AMONG_SQL)
    .all({ match, limit, seqs: JSON.stringify(seqs) });
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

/** The first index in [from, to) of sorted `a` whose value is ≥ `x`. */
function lowerBound(a: Int32Array, from: number, to: number, x: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Layout {
  rows: number;
  terms: number;
  postings: number;
  seqs: number;
  lengths: number;
  termStart: number;
  termByteStart: number;
  ords: number;
  tfs: number;
  termBytes: number;
  total: number;
}

/** Byte offsets of the file's arrays (each 4-aligned); `bytes` < 0: up to the buffer's end. */
function layoutOf(rows: number, terms: number, postings: number, bytes: number): Layout {
  const seqs = 0;
  const lengths = seqs + 4 * rows;
  const termStart = lengths + 4 * rows;
  const termByteStart = termStart + 4 * (terms + 1);
  const ords = termByteStart + 4 * (terms + 1);
  const tfs = ords + 4 * postings;
  const termBytes = tfs + 4 * Math.ceil((2 * postings) / 4);
  return {
    rows,
    terms,
    postings,
    seqs,
    lengths,
    termStart,
    termByteStart,
    ords,
    tfs,
    termBytes,
    total: termBytes + bytes,
  };
}

function views(buf: Uint8Array, l: Layout) {
  const at = buf.byteOffset;
  const need = l.termBytes;
  if (buf.length < need) throw new Error("keyword index: file shorter than its layout");
  return {
    seqs: new Int32Array(buf.buffer, at + l.seqs, l.rows),
    lengths: new Uint32Array(buf.buffer, at + l.lengths, l.rows),
    termStart: new Uint32Array(buf.buffer, at + l.termStart, l.terms + 1),
    termByteStart: new Uint32Array(buf.buffer, at + l.termByteStart, l.terms + 1),
    ords: new Int32Array(buf.buffer, at + l.ords, l.postings),
    tfs: new Uint16Array(buf.buffer, at + l.tfs, l.postings),
    termBytes: buf.subarray(l.termBytes),
  };
}

/** Writes a new generation and commits it by renaming the sidecar; older generations go. */
function save(file: string, buf: Uint8Array, s: Omit<KwSidecar, "gen" | "digest">): KwSidecar {
  const gen = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  writeFileSync(binPath(file, gen), buf);
  const side: KwSidecar = { ...s, gen, digest: Bun.hash(buf).toString(16) };
  const tmp = `${keywordSidecarPath(file)}.tmp-${gen}`;
  writeFileSync(tmp, JSON.stringify(side));
  renameSync(tmp, keywordSidecarPath(file));
  const keep = basename(binPath(file, gen));
  for (const f of keywordFiles(file)) {
    const name = basename(f);
    if (name.endsWith(".bin") && name !== keep) rmSync(f, { force: true });
  }
  return side;
}
