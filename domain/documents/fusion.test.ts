import { describe, expect, test } from "bun:test";
import { candidatesPerLeg, checkWeights, fuseRrf, RRF_K, rankForMode } from "./fusion.ts";

const leg = (...ids: string[]) => ids.map((id, i) => ({ id, score: 10 - i }));

describe("weighted reciprocal rank fusion", () => {
  test("scores are Σ weight / (k + rank); agreement beats one leg's first place", () => {
    const fused = fuseRrf(leg("a", "b", "c"), leg("b", "d"), 10);
    expect(fused.map((f) => f.id)).toEqual(["b", "a", "d", "c"]);
    const b = fused[0];
    expect(b?.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1), 12);
    expect(b?.ranks).toEqual({ bm25: 2, dense: 1 });
    expect(fused.find((f) => f.id === "c")?.ranks).toEqual({ bm25: 3, dense: null });
  });

  test("weights tilt the fusion; zero weight leaves only the other leg's order", () => {
    const bm = leg("a", "b");
    const dn = leg("b", "a");
    expect(fuseRrf(bm, dn, 2, { weights: { bm25: 2, dense: 1 } }).map((f) => f.id)).toEqual(["a", "b"]);
    expect(fuseRrf(bm, dn, 2, { weights: { bm25: 1, dense: 2 } }).map((f) => f.id)).toEqual(["b", "a"]);
    expect(fuseRrf(bm, dn, 2, { weights: { bm25: 0, dense: 1 } }).map((f) => f.id)).toEqual(["b", "a"]);
  });

  test("ties break by the better single-leg rank, then id; the limit applies", () => {
    // x is first in bm25 and y first in dense: equal scores, equal best rank → id order.
    expect(fuseRrf(leg("x"), leg("y"), 5).map((f) => f.id)).toEqual(["x", "y"]);
    expect(fuseRrf(leg("a", "b", "c"), [], 2).map((f) => f.id)).toEqual(["a", "b"]);
    expect(fuseRrf([], [], 3)).toEqual([]);
  });

  test("single-leg modes keep the leg's order and own score", () => {
    const r = rankForMode("dense", leg("a"), [{ id: "z", score: 0.9 }], 5);
    expect(r).toEqual([{ id: "z", score: 0.9, ranks: { bm25: null, dense: 1 } }]);
    expect(rankForMode("bm25", leg("a", "b"), [], 1)).toEqual([
      { id: "a", score: 10, ranks: { bm25: 1, dense: null } },
    ]);
  });

  test("candidates per leg exceed k and are bounded; weights are checked", () => {
    expect(candidatesPerLeg(1)).toBe(50);
    expect(candidatesPerLeg(100)).toBe(400);
    expect(candidatesPerLeg(1000)).toBe(1000);
    for (const k of [1, 10, 100, 999]) expect(candidatesPerLeg(k)).toBeGreaterThan(k);
    expect(checkWeights({ bm25: 1, dense: 0 })).toBeNull();
    expect(checkWeights({ bm25: 0, dense: 0 })).toMatch(/positive/);
    expect(checkWeights({ bm25: -1, dense: 1 })).toMatch(/bm25/);
    expect(checkWeights({ bm25: 1, dense: Number.NaN })).toMatch(/dense/);
  });
});
