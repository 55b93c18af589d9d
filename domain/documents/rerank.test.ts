import { describe, expect, test } from "bun:test";
import { FEATURE_NAMES, numbers, type RankCandidate, rankFeatures, terms } from "./rank-features.ts";
import { checkRankModel, type LinearRankModel, type RankModel, RERANK_DEPTH, rerank, scoreFeatures } from "./rerank.ts";
import { only } from "./rerank-test-support.ts";

const cand = (text: string, bm25: number | null, dense: number | null, filename = "doc.txt"): RankCandidate => ({
  text,
  filename,
  ranks: { bm25, dense },
});
const feature = (name: (typeof FEATURE_NAMES)[number]) => FEATURE_NAMES.indexOf(name);

describe("rank features", () => {
  test("terms and numbers are normalised the same way for question and chunk", () => {
    expect(terms("What is the Revenue of ACME in FY2019?")).toEqual(["revenue", "acme", "fy2019"]);
    expect([...numbers("net sales were $1,200.50 in 2019 and 3.0% vs 12")]).toEqual(["1200.5", "2019", "3", "12"]);
  });

  test("deterministic, one vector per candidate, values as documented", () => {
    const q = "capital expenditure of 3M in 2018";
    const cs = [
      cand("3M 2018 10K\nCapital expenditure was 1,577 in 2018.", 1, 3, "3M_2018_10K.pdf"),
      cand("Revenue grew in 2017.", null, 1),
    ];
    const a = rankFeatures(q, cs);
    expect(rankFeatures(q, cs)).toEqual(a);
    expect(a).toHaveLength(2);
    for (const x of a) expect(x).toHaveLength(FEATURE_NAMES.length);
    const [first, second] = a as [number[], number[]];
    expect(first[feature("bm25_rr")]).toBeCloseTo(10 / 11, 12);
    expect(first[feature("dense_rr")]).toBeCloseTo(10 / 13, 12);
    expect(second[feature("bm25_rr")]).toBe(0);
    expect(first[feature("both_legs")]).toBe(1);
    expect(second[feature("both_legs")]).toBe(0);
    // Question terms: capital, expenditure, 3m, 2018 (stop words dropped); the first chunk has all.
    expect(first[feature("cover")]).toBe(1);
    expect(second[feature("cover")]).toBe(0);
    expect(first[feature("num_cover")]).toBe(1); // "3" and "2018"
    expect(first[feature("head_cover")]).toBeCloseTo(2 / 4, 12); // 3m, 2018 from "3M_2018_10K" and line 1
    expect(first[feature("q_has_num")]).toBe(1);
    expect(first[feature("fused_rr")]).toBeGreaterThan(second[feature("fused_rr")] as number);
  });

  test("no candidates, a question without terms or numbers: zeros, not NaN", () => {
    expect(rankFeatures("anything", [])).toEqual([]);
    const [x] = rankFeatures("the of and ?", [cand("some text", 2, null)]) as [number[]];
    for (const v of x) expect(Number.isFinite(v)).toBe(true);
    expect(x[feature("cover")]).toBe(0);
    expect(x[feature("num_cover")]).toBe(0);
  });
});

describe("learned reranker", () => {
  const cs = [cand("alpha beta", 1, null), cand("gamma 2019 revenue", 2, 5), cand("revenue 2019 gamma delta", null, 1)];

  test("the order changes as the model says, and scores descend", () => {
    const q = "gamma revenue 2019";
    // By the keyword leg's rank: candidates 0, 1, then 2 (absent from bm25).
    expect(rerank(q, cs, only("bm25_rr")).map((r) => r.item)).toEqual([cs[0], cs[1], cs[2]] as RankCandidate[]);
    // By the vector leg's rank: 2 (rank 1), 1 (rank 5), 0 (absent).
    expect(rerank(q, cs, only("dense_rr")).map((r) => r.item)).toEqual([cs[2], cs[1], cs[0]] as RankCandidate[]);
    // By term coverage, negated: the chunk with none of the terms first.
    const out = rerank(q, cs, only("cover", -1));
    expect(out[0]?.item).toBe(cs[0]);
    for (let i = 1; i < out.length; i++) expect(out[i - 1]?.score).toBeGreaterThanOrEqual(out[i]?.score as number);
  });

  test("ties keep the fused order; candidates past the depth stay below, in order", () => {
    const flat = only("q_len"); // same value for every candidate of one question
    expect(rerank("gamma", cs, flat).map((r) => r.item)).toEqual(cs);
    const many = Array.from({ length: RERANK_DEPTH + 3 }, (_, i) => cand(`chunk ${i}`, i + 1, RERANK_DEPTH + 3 - i));
    const out = rerank("chunk", many, only("dense_rr"));
    expect(out).toHaveLength(many.length);
    expect(out.slice(RERANK_DEPTH).map((r) => r.item)).toEqual(many.slice(RERANK_DEPTH));
    expect(out[0]?.item).toBe(many[RERANK_DEPTH - 1]); // best dense rank among the first 50
  });

  test("linear scores standardise features; trees sum their leaves", () => {
    const m: LinearRankModel = { ...only("cover", 2), mean: FEATURE_NAMES.map(() => 0.5), bias: 1 };
    const x = FEATURE_NAMES.map(() => 1);
    expect(scoreFeatures(m, x)).toBeCloseTo(1 + 2 * (1 - 0.5), 12);
    const trees: RankModel = {
      kind: "trees",
      features: [...FEATURE_NAMES],
      trees: [
        {
          split_feature: feature("cover"),
          threshold: 0.5,
          decision_type: "<=",
          default_left: true,
          left_child: { leaf_value: -1 },
          right_child: { leaf_value: 2 },
        },
        { leaf_value: 0.25 },
      ],
    };
    expect(scoreFeatures(trees, x)).toBe(2.25);
    expect(
      scoreFeatures(
        trees,
        FEATURE_NAMES.map(() => 0),
      ),
    ).toBe(-0.75);
  });

  test("a model for other features is refused", () => {
    expect(() => checkRankModel({ ...only("cover"), features: ["cover"] })).toThrow(/do not match/);
    expect(() => checkRankModel({ ...only("cover"), weights: [Number.NaN] })).toThrow(/coefficient/);
    expect(() => checkRankModel({ kind: "trees", features: [...FEATURE_NAMES], trees: [] })).toThrow(/no trees/);
  });
});
