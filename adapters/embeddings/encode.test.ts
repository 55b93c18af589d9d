import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { installedModelsDir } from "../../test/embedding-models.ts";
import { BertTokenizer, clipText, concatNormalized, normalize, pool, runsByLength } from "./encode.ts";

describe("pooling and normalisation", () => {
  // batch 2, seqLen 3, width 2; row 1 has one padding position.
  const hidden = Float32Array.from([3, 4, 1, 1, 9, 9, 0, 2, 2, 0, 100, 100]);
  const mask = BigInt64Array.from([1n, 1n, 1n, 1n, 1n, 0n]);

  test("CLS pooling takes the first position, normalised", () => {
    const [a, b] = pool(hidden, [2, 3, 2], mask, "cls");
    expect(Array.from(a as Float32Array)).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(Array.from(b as Float32Array)).toEqual([0, 1]);
  });

  test("mean pooling ignores padded positions", () => {
    const [, b] = pool(hidden, [2, 3, 2], mask, "mean");
    // mean of (0,2) and (2,0) = (1,1); the padded (100,100) must not count.
    expect((b as Float32Array)[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect((b as Float32Array)[1]).toBeCloseTo(Math.SQRT1_2, 6);
  });

  test("a zero vector is an error, not a silent NaN", () => {
    expect(() => normalize(new Float32Array(4))).toThrow("zero");
  });

  test("concatenating unit vectors scaled by 1/sqrt(n) is unit length", () => {
    const a = normalize(Float32Array.from([1, 2, 3]));
    const b = normalize(Float32Array.from([-1, 0, 5]));
    const c = concatNormalized([a, b]);
    expect(c.length).toBe(6);
    expect(Math.hypot(...c)).toBeCloseTo(1, 6);
    expect(c[0]).toBeCloseTo((a[0] as number) / Math.SQRT2, 7);
  });

  test("clipText collapses whitespace and bounds the length", () => {
    expect(clipText("  a \n\n b\tc  ", 512)).toBe("a b c");
    expect(clipText("word ".repeat(100_000), 512).length).toBe(512 * 64);
  });
});

const dir = installedModelsDir(["e5-small-v2"], "bert tokenizer");
(dir ? describe : describe.skip)("BertTokenizer (e5-small-v2 tokenizer.json)", () => {
  const tok = new BertTokenizer(JSON.parse(readFileSync(join(dir as string, "e5-small-v2", "tokenizer.json"), "utf8")));

  test("wraps in [CLS] ... [SEP] and truncates to the limit", () => {
    const ids = tok.ids("Revenue grew. ".repeat(1000), "passage: ", 512);
    expect(ids.length).toBe(512);
    expect(ids[0]).toBe(101);
    expect(ids.at(-1)).toBe(102);
    expect(tok.ids("hello world", "", 512)).toEqual([101, 7592, 2088, 102]);
  });

  test("gives the reference (Rust) tokenizer's ids, truncation included", () => {
    const golden = JSON.parse(readFileSync(join(import.meta.dir, "tokenizer-golden.json"), "utf8")) as {
      cases: { text: string; ids: number[] }[];
      truncated: { text_repeat: string; times: number; ids: number[] };
    };
    for (const c of golden.cases) expect(tok.ids(c.text, "", 512)).toEqual(c.ids);
    expect(tok.ids(golden.truncated.text_repeat.repeat(golden.truncated.times), "", 512)).toEqual(golden.truncated.ids);
  });

  test("a batch is padded to its longest member with a matching mask", () => {
    const b = tok.batch(["hello world", "hello"], "", 512);
    expect([b.batch, b.seqLen]).toEqual([2, 4]);
    expect(Array.from(b.inputIds)).toEqual([101n, 7592n, 2088n, 102n, 101n, 7592n, 102n, 0n]);
    expect(Array.from(b.attentionMask)).toEqual([1n, 1n, 1n, 1n, 1n, 1n, 1n, 0n]);
  });
});

describe("runsByLength", () => {
  test("runs hold at most the budget once padded, shortest first, each row exactly once", () => {
    const lengths = [300, 10, 40, 12, 60, 11, 129, 30];
    const runs = runsByLength(lengths, 128);
    expect(runs.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
    for (const run of runs) {
      const longest = Math.max(...run.map((i) => lengths[i] as number));
      if (run.length > 1) expect(run.length * longest).toBeLessThanOrEqual(128);
    }
    // Short rows share runs; a row longer than the budget runs alone.
    expect(runs).toEqual([[1, 5, 3, 7], [2, 4], [6], [0]]);
  });

  test("no rows, no runs", () => {
    expect(runsByLength([])).toEqual([]);
  });
});
