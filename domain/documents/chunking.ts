/**
 * Overlapping chunks that respect paragraph and sentence boundaries (spec 4.6).
 *
 * Blocks are cut into sentences (Intl.Segmenter, i.e. ICU's rules); a sentence longer than
 * a chunk can hold is cut between words. Sentences are packed greedily up to `targetChars`;
 * a chunk ends early at a paragraph boundary once it is `paragraphBreakRatio` full, so
 * paragraphs stay whole where they can. Each new chunk starts with the last sentences of the
 * previous one (at most `overlapChars`), or its last words when one sentence is longer, so a
 * passage cut at a boundary is still found whole in one of the two chunks.
 *
 * Guarantees (checked by seeded property tests): every word of the input is in some chunk,
 * in order; no chunk is longer than `targetChars` (only a single "word" longer than a chunk
 * is ever cut); consecutive chunks share at least one word; words are never split.
 */
import type { Chunk, ExtractedDocument, TextBlock } from "./types.ts";

export interface ChunkOptions {
  /** Most characters in a chunk (default 1000, about 250 tokens for English). */
  targetChars?: number;
  /** Most characters repeated from the previous chunk (default 15% of targetChars). */
  overlapChars?: number;
  /** A paragraph boundary ends the chunk once it is this full (default 0.6). */
  paragraphBreakRatio?: number;
}

interface Piece {
  text: string;
  page: number | undefined;
  /** First piece of a block: joined to the previous piece with a blank line. */
  startsBlock: boolean;
  /** The block is a heading: never end a chunk right after it. */
  heading: boolean;
}

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

function sentences(text: string): string[] {
  const out: string[] = [];
  for (const s of segmenter.segment(text)) {
    const t = s.segment.trim();
    if (t) out.push(t);
  }
  return out;
}

/** Cuts text into pieces of at most `max` characters between words (a longer word is cut). */
function splitWords(text: string, max: number): string[] {
  const out: string[] = [];
  let cur = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (word.length > max) {
      if (cur) out.push(cur);
      cur = "";
      for (let i = 0; i < word.length; i += max) out.push(word.slice(i, i + max));
      continue;
    }
    if (!cur) cur = word;
    else if (cur.length + 1 + word.length <= max) cur += ` ${word}`;
    else {
      out.push(cur);
      cur = word;
    }
  }
  if (cur) out.push(cur);
  return out;
}

function toPieces(blocks: readonly TextBlock[], maxPiece: number): Piece[] {
  const pieces: Piece[] = [];
  for (const block of blocks) {
    const text = block.text.trim();
    if (!text) continue;
    // Lines of tables and lists are their own units; prose lines go to the sentence splitter.
    const units = block.kind === "table" || block.kind === "list" ? text.split(/\n+/) : sentences(text);
    let first = true;
    for (const unit of units) {
      const parts = unit.length <= maxPiece ? [unit.trim()] : splitWords(unit, maxPiece);
      for (const part of parts) {
        if (!part) continue;
        pieces.push({ text: part, page: block.page, startsBlock: first, heading: block.kind === "heading" });
        first = false;
      }
    }
  }
  return pieces;
}

function join(pieces: readonly Piece[]): string {
  let out = "";
  pieces.forEach((p, i) => {
    if (i === 0) out = p.text;
    else out += (p.startsBlock ? "\n\n" : " ") + p.text;
  });
  return out;
}

function joinedLength(pieces: readonly Piece[]): number {
  return pieces.reduce((n, p, i) => n + p.text.length + (i === 0 ? 0 : p.startsBlock ? 2 : 1), 0);
}

/** The tail of a chunk to repeat at the start of the next one: whole pieces, else words. */
function overlapOf(chunk: readonly Piece[], budget: number): Piece[] {
  let tail: Piece[] = [];
  for (let i = chunk.length - 1; i >= 0; i--) {
    const candidate = chunk.slice(i).map((p, j) => (j === 0 ? { ...p, startsBlock: false } : p));
    if (joinedLength(candidate) > budget) break;
    tail = candidate;
  }
  if (tail.length > 0) return tail;
  const last = chunk[chunk.length - 1];
  if (!last) return [];
  const words = last.text.split(/\s+/);
  let text = "";
  for (let i = words.length - 1; i >= 0; i--) {
    const next = text ? `${words[i]} ${text}` : words[i]!;
    if (next.length > budget) break;
    text = next;
  }
  return text ? [{ ...last, text, startsBlock: false }] : [];
}

export function chunkBlocks(blocks: readonly TextBlock[], opts: ChunkOptions = {}): Chunk[] {
  const target = opts.targetChars ?? 1000;
  const overlap = Math.min(opts.overlapChars ?? Math.round(target * 0.15), Math.floor(target / 3));
  const breakAt = target * (opts.paragraphBreakRatio ?? 0.6);
  if (!Number.isFinite(target) || target < 20) throw new RangeError("targetChars must be at least 20");
  // A piece plus a full overlap always fits in one chunk, so every chunk after the first overlaps.
  const pieces = toPieces(blocks, Math.max(1, target - overlap - 2));

  const chunks: Piece[][] = [];
  let cur: Piece[] = [];
  let fresh = 0; // pieces in `cur` that are not overlap
  const close = () => {
    chunks.push(cur);
    cur = overlapOf(cur, overlap);
    fresh = 0;
  };
  for (const piece of pieces) {
    const size = joinedLength(cur);
    const sep = cur.length === 0 ? 0 : piece.startsBlock ? 2 : 1;
    const prev = cur[cur.length - 1];
    const atParagraph = piece.startsBlock && fresh > 0 && size >= breakAt && !prev?.heading;
    if (fresh > 0 && (size + sep + piece.text.length > target || atParagraph)) close();
    // The overlap may still be too long next to this piece (never with the default split size).
    while (cur.length > 0 && fresh === 0 && joinedLength([...cur, piece]) > target) cur = cur.slice(1);
    cur.push(piece);
    fresh++;
  }
  if (fresh > 0) chunks.push(cur);

  return chunks.map((pieces, i) => {
    const page = pieces.find((p) => p.page !== undefined)?.page;
    return page === undefined ? { chunk_index: i, text: join(pieces) } : { chunk_index: i, text: join(pieces), page };
  });
}

/** Chunks of an extracted document, numbered from 0 in reading order. */
export function chunkDocument(doc: ExtractedDocument, opts: ChunkOptions = {}): Chunk[] {
  return chunkBlocks(doc.blocks, opts);
}
