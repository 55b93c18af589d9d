/**
 * The keyword index's file (keyword-index.ts): its layout, its build from FTS5, and mapping it.
 *
 * - One file per generation, `<file>.kw-<gen>.bin`: chunk rowids (i32, ascending) and token
 *   counts (u32) per chunk ordinal; per term, where its postings start (u32) and where its bytes
 *   start (u32); the postings — chunk ordinals (i32, ascending within a term) and frequencies
 *   (u16); then the terms' UTF-8 bytes. Every array starts 4-aligned, so typed arrays view the
 *   mapped bytes in place.
 * - `<file>.kw.json` names the generation with its watermark (the `ann_log` head it was built
 *   at), sizes and wyhash digest; its rename commits a build (side-builds.ts `commitGeneration`).
 * - Built from FTS5 itself in the caller's read snapshot: `fts5vocab` `instance` lists every
 *   (term, chunk) occurrence term by term, chunks ascending, so postings are counted in one
 *   pass; the docsize rows give each chunk's length as bm25() reads it.
 * - Mapped read-only (`Bun.mmap`) after its digest and offsets check, so every search thread
 *   shares one copy through the page cache and a damaged file is refused, not trusted. The
 *   digest is computed once per generation, not per thread (generation-check.ts).
 */
import type { Database } from "bun:sqlite";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { logHead, namespaceId } from "./ann-index.ts";
import { varintSum } from "./fts5-reads.ts";
import { type Generation, intactGeneration, wholeDigest } from "./generation-check.ts";
import { commitGeneration, newGeneration, removeSideFiles, sideFiles } from "./side-builds.ts";

/** Bumped when the file layout changes: older files are rebuilt. */
export const KW_VERSION = 1;

export interface KwSidecar {
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

/** A generation's arrays, viewing its bytes (mapped, or just built). */
export interface KeywordFile {
  side: KwSidecar;
  /** Chunk rowid per ordinal, ascending. */
  seqs: Int32Array;
  /** Tokens per chunk ordinal (FTS5's docsize). */
  lengths: Uint32Array;
  /** Term t's postings are [termStart[t], termStart[t + 1]). */
  termStart: Uint32Array;
  termByteStart: Uint32Array;
  /** Per posting: the chunk ordinal, ascending within a term, and the term's count in it. */
  ords: Int32Array;
  tfs: Uint16Array;
  termBytes: Uint8Array;
}

export const keywordSidecarPath = (file: string): string => `${file}.kw.json`;
export const binPath = (file: string, gen: string): string => `${file}.kw-${gen}.bin`;

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

/**
 * Builds a generation for what `db` reads now (call inside a read transaction: one snapshot)
 * and commits it; null when FTS5's content is beyond this format (a rowid above 2³¹ or a term
 * more than 65,535 times in one chunk).
 */
export function buildKeywordFile(db: Database, file: string): KeywordFile | null {
  const watermark = logHead(db);
  const sizes = db.query<{ id: number; sz: Uint8Array }, []>("SELECT id, sz FROM chunks_fts_docsize ORDER BY id").all();
  const rows = sizes.length;
  const maxSeq = rows > 0 ? (sizes[rows - 1] as { id: number }).id : 0;
  if (maxSeq > 0x7fffffff) return null;
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
    return { side, ...v };
  } finally {
    db.exec("DROP TABLE IF EXISTS temp.kw_rows; DROP TABLE IF EXISTS temp.kw_inst;");
  }
}

/** The saved generation of `file`, mapped, or null when absent, stale or damaged. */
export function mapKeywordFile(db: Database, file: string): KeywordFile | null {
  const side = readKeywordSidecar(db, file);
  if (!side) return null;
  try {
    const path = binPath(file, side.gen);
    const buf = Bun.mmap(path, { shared: false });
    const sidecar = keywordSidecarPath(file);
    const g: Generation = { path, gen: side.gen, sidecar, bytes: side.bytes, digest: side.digest, method: "whole" };
    if (!intactGeneration(g, () => wholeDigest(buf))) return null;
    const v = views(buf, layoutOf(side.rows, side.terms, side.postings, -1));
    // Bounds the loops trust: offsets rise within the arrays.
    const ts = v.termStart;
    const bs = v.termByteStart;
    if (side.terms > 0 && (ts[0] !== 0 || ts[side.terms] !== side.postings)) return null;
    for (let i = 0; i < side.terms; i++) {
      if ((ts[i] as number) > (ts[i + 1] as number) || (bs[i] as number) > (bs[i + 1] as number)) return null;
    }
    if ((bs[side.terms] as number) > v.termBytes.length) return null;
    return { side, ...v };
  } catch {
    return null; // missing, unreadable or shorter than its layout: the caller rebuilds
  }
}

/** The first index in [from, to) of sorted `a` whose value is ≥ `x`. */
export function lowerBound(a: Int32Array, from: number, to: number, x: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  const total = termBytes + bytes;
  return { rows, terms, postings, seqs, lengths, termStart, termByteStart, ords, tfs, termBytes, total };
}

function views(buf: Uint8Array, l: Layout): Omit<KeywordFile, "side"> {
  const at = buf.byteOffset;
  if (buf.length < l.termBytes) throw new Error("keyword index: file shorter than its layout");
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
  const gen = newGeneration();
  writeFileSync(binPath(file, gen), buf);
  const side: KwSidecar = { ...s, gen, digest: wholeDigest(buf) };
  commitGeneration(keywordSidecarPath(file), binPath(file, gen), side);
  // Older generations go with their stamps (generation-check.ts).
  const keep = basename(binPath(file, gen));
  for (const f of keywordFiles(file)) {
    const name = basename(f);
    if ((name.endsWith(".bin") || name.endsWith(".bin.ok")) && !name.startsWith(keep)) rmSync(f, { force: true });
  }
  return side;
}
