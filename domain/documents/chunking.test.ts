import { describe, expect, test } from "bun:test";
import { prng } from "../../test/prng.ts";
import { chunkBlocks, chunkDocument } from "./chunking.ts";
import type { Chunk, TextBlock } from "./types.ts";

const SEED = Number(process.env.CAIRN_FUZZ_SEED ?? Date.now() % 1_000_000);

const VOCAB = [
  "revenue",
  "EBITDA",
  "margin",
  "guidance",
  "the",
  "of",
  "quarter",
  "growth",
  "$4.2bn",
  "12.5%",
  "Mr.",
  "U.S.",
  "covenant",
  "leverage",
  "and",
  "a",
  "debt",
  "facility",
  "e.g.",
  "(restated)",
  "Zürich",
  "synergies",
];

const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** Random prose: sentences of random length, paragraphs of random sentence counts. */
function randomDoc(r: ReturnType<typeof prng>): TextBlock[] {
  const blocks: TextBlock[] = [];
  const nBlocks = 1 + r.int(25);
  for (let b = 0; b < nBlocks; b++) {
    const sentences: string[] = [];
    // Occasionally one huge sentence or a very long "word" (a URL, a hash).
    const nSent = r.bool(0.1) ? 1 : 1 + r.int(12);
    for (let s = 0; s < nSent; s++) {
      const n = r.bool(0.05) ? 300 + r.int(300) : 3 + r.int(30);
      const ws = Array.from({ length: n }, () => (r.bool(0.01) ? "x".repeat(50 + r.int(1500)) : r.pick(VOCAB)));
      ws[0] = ws[0]!.charAt(0).toUpperCase() + ws[0]!.slice(1);
      sentences.push(`${ws.join(" ")}.`);
    }
    const kind = r.pick(["paragraph", "heading", "table", "list", "ocr"] as const);
    const text = kind === "table" ? sentences.join("\n") : sentences.join(" ");
    blocks.push({ text, kind, page: 1 + Math.floor(b / 4) });
  }
  return blocks;
}

/**
 * Rebuilds the input's word sequence from the chunks: chunk i+1 must start with a suffix of
 * chunk i (the overlap, at least one word) and continue exactly where chunk i ended.
 */
function stitch(chunks: Chunk[], input: string[], target: number): string[] {
  const out = [...words(chunks[0]!.text)];
  for (let i = 1; i < chunks.length; i++) {
    const prev = words(chunks[i - 1]!.text);
    const cur = words(chunks[i]!.text);
    let ok = false;
    // The overlap is at most 15% of a chunk; try the longest that keeps us on the input.
    for (let k = Math.min(prev.length, cur.length); k >= 1; k--) {
      const suffix = prev.slice(prev.length - k);
      if (suffix.join(" ") !== cur.slice(0, k).join(" ")) continue;
      const next = cur.slice(k);
      if (next.every((w, j) => input[out.length + j] === w)) {
        out.push(...next);
        ok = true;
        break;
      }
    }
    // No overlap is allowed only when the previous chunk ends with a word longer than the
    // overlap budget (15% of the target): words are never cut to make an overlap.
    if (!ok && prev.at(-1)!.length > target * 0.15 && cur.every((w, j) => input[out.length + j] === w)) {
      out.push(...cur);
      ok = true;
    }
    if (!ok) throw new Error(`chunk ${i} does not overlap chunk ${i - 1} (seed ${SEED})`);
  }
  return out;
}

describe("chunking properties (seeded)", () => {
  test(`every word kept in order, size bound, overlap present (seed ${SEED})`, () => {
    const r = prng(SEED);
    for (let round = 0; round < 150; round++) {
      const blocks = randomDoc(r);
      const target = 200 + r.int(1400);
      const chunks = chunkBlocks(blocks, { targetChars: target });
      const input = blocks.flatMap((b) => words(b.text));
      const hasHuge = input.some((w) => w.length > target * 0.6);

      // Numbered from 0 in order; never empty; never over the target.
      chunks.forEach((c, i) => {
        expect(c.chunk_index).toBe(i);
        expect(c.text.trim().length).toBeGreaterThan(0);
        expect(c.text.length).toBeLessThanOrEqual(target);
      });
      // Every word of the input is in some chunk (and, stitched, in order).
      const all = new Set(chunks.flatMap((c) => words(c.text)));
      if (!hasHuge) for (const w of input) expect(all.has(w)).toBe(true);
      if (!hasHuge) expect(stitch(chunks, input, target)).toEqual(input);
      // Pages never go backwards.
      for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.page!).toBeGreaterThanOrEqual(chunks[i - 1]!.page!);
    }
  });

  test(`words are never split unless longer than a chunk (seed ${SEED})`, () => {
    const r = prng(SEED + 1);
    for (let round = 0; round < 100; round++) {
      const blocks = randomDoc(r);
      const target = 300 + r.int(900);
      const vocab = new Set(blocks.flatMap((b) => words(b.text)));
      for (const c of chunkBlocks(blocks, { targetChars: target })) {
        for (const w of words(c.text)) {
          if (!vocab.has(w)) expect(w).toMatch(/^(x+\.?|\.)$/i); // only an over-long token is cut
        }
      }
    }
  });
});

describe("chunking behaviour", () => {
  const para = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `Sentence ${tag}${i} says something about quarterly revenue.`).join(" ");

  test("short paragraphs are packed together, blank line between them", () => {
    const chunks = chunkBlocks([{ text: "First paragraph." }, { text: "Second paragraph." }]);
    expect(chunks).toEqual([{ chunk_index: 0, text: "First paragraph.\n\nSecond paragraph." }]);
  });

  test("a chunk ends at a paragraph boundary rather than mid-paragraph when reasonably full", () => {
    const a = para(12, "a"); // ~600 chars
    const b = para(12, "b");
    const chunks = chunkBlocks([{ text: a }, { text: b }], { targetChars: 1000 });
    expect(chunks[0]!.text).toBe(a);
    expect(chunks[1]!.text.endsWith(b)).toBe(true);
    // The second chunk repeats the end of the first (whole sentences).
    expect(chunks[1]!.text.startsWith("Sentence a")).toBe(true);
  });

  test("a long paragraph splits at sentence boundaries, with overlap", () => {
    const text = para(60, "s");
    const chunks = chunkBlocks([{ text }], { targetChars: 800, overlapChars: 120 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.text.startsWith("Sentence s")).toBe(true);
      expect(c.text.endsWith("revenue.")).toBe(true);
    }
    for (let i = 1; i < chunks.length; i++) {
      // The next chunk starts with the previous one's last whole sentences (≤ 120 chars).
      const firstSentence = chunks[i]!.text.split(/(?<=\.) /)[0]!;
      const at = chunks[i - 1]!.text.lastIndexOf(firstSentence);
      expect(at).toBeGreaterThan(0);
      const repeated = chunks[i - 1]!.text.slice(at);
      expect(repeated.length).toBeLessThanOrEqual(120);
      expect(chunks[i]!.text.startsWith(repeated)).toBe(true);
    }
  });

  test("a heading stays with the paragraph after it", () => {
    const blocks: TextBlock[] = [
      { text: para(11, "a") },
      { text: "Results of operations", kind: "heading" },
      { text: para(11, "b") },
    ];
    const chunks = chunkBlocks(blocks, { targetChars: 1000 });
    const withHeading = chunks.find((c) => c.text.includes("Results of operations"))!;
    expect(withHeading.text).toContain("Sentence b0");
  });

  test("the page of a chunk is the page of its first text", () => {
    const blocks: TextBlock[] = [
      { text: para(10, "p1"), page: 1 },
      { text: para(10, "p2"), page: 2 },
      { text: para(10, "p3"), page: 3 },
    ];
    const chunks = chunkDocument({ format: "pdf", blocks, pages: 3, notes: [] }, { targetChars: 700 });
    expect(chunks[0]!.page).toBe(1);
    expect(chunks.at(-1)!.page).toBeGreaterThanOrEqual(2);
    for (const c of chunks) if (c.text.startsWith("Sentence p3")) expect(c.page).toBe(3);
  });

  test("tables split between rows", () => {
    const rows = Array.from({ length: 60 }, (_, i) => `Row ${i} | Revenue | ${1000 + i}`).join("\n");
    const chunks = chunkBlocks([{ text: rows, kind: "table" }], { targetChars: 300 });
    for (const c of chunks)
      for (const line of c.text.split(/\n| (?=Row )/)) expect(line).toMatch(/^Row \d+ \| Revenue \| \d+$/);
  });

  test("empty input gives no chunks; tiny targets are refused", () => {
    expect(chunkBlocks([{ text: "  " }])).toEqual([]);
    expect(() => chunkBlocks([{ text: "x" }], { targetChars: 5 })).toThrow(RangeError);
  });
});
