import { describe, expect, test } from "bun:test";
import {
  candidatesPerLeg,
  checkWeights,
  DEFAULT_FUSION,
  fuse,
  fuseRrf,
  normalise,
  RRF_K,
  rankForMode,
} from "./fusion.ts";

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

describe("score fusion over normalised legs", () => {
  const scored = (...pairs: [string, number][]) => pairs.map(([id, score]) => ({ id, score }));

  test("min-max: each leg maps onto [0, 1]; a chunk missing from a leg gets 0 from it", () => {
    const bm = scored(["a", 30], ["b", 20], ["c", 10]);
    const dn = scored(["c", 0.9], ["b", 0.5], ["d", 0.1]);
    const f = fuse(bm, dn, 10, { method: "minmax" });
    const by = new Map(f.map((x) => [x.id, x.score]));
    expect(by.get("a")).toBeCloseTo(1 + 0, 12);
    expect(by.get("b")).toBeCloseTo(0.5 + 0.5, 12);
    expect(by.get("c")).toBeCloseTo(0 + 1, 12);
    expect(by.get("d")).toBeCloseTo(0, 12);
    // a, b and c tie at 1: the better single-leg rank wins (a and c are first in a leg), then id.
    expect(f.map((x) => x.id)).toEqual(["a", "c", "b", "d"]);
    expect(f[2]?.ranks).toEqual({ bm25: 2, dense: 2 });
  });

  test("the shape of a leg's scores counts, unlike RRF: a clear winner beats agreement", () => {
    // bm25's first hit stands far above its second; dense barely separates its top three.
    const bm = scored(["x", 100], ["y", 2], ["z", 1]);
    const dn = scored(["y", 0.81], ["z", 0.8], ["x", 0.79], ["w", 0.1]);
    expect(fuse(bm, dn, 1, { method: "minmax" })[0]?.id).toBe("x");
    expect(fuse(bm, dn, 1, { method: "rrf" })[0]?.id).toBe("y");
  });

  test("one leg empty: the other leg's order, for every method", () => {
    const bm = scored(["a", 3], ["b", 2], ["c", 1]);
    for (const method of ["rrf", "minmax", "zscore"] as const) {
      expect(fuse(bm, [], 5, { method }).map((x) => x.id)).toEqual(["a", "b", "c"]);
      expect(fuse([], bm, 5, { method }).map((x) => x.id)).toEqual(["a", "b", "c"]);
      expect(fuse([], [], 5, { method })).toEqual([]);
    }
  });

  test("equal scores: min-max counts presence as 1, z-score as 0; order falls to ranks and ids", () => {
    const bm = scored(["a", 5], ["b", 5]);
    const dn = scored(["c", 0.5]);
    const mm = fuse(bm, dn, 5, { method: "minmax" });
    expect(mm.map((x) => x.score)).toEqual([1, 1, 1]);
    expect(mm.map((x) => x.id)).toEqual(["a", "c", "b"]);
    const z = fuse(bm, dn, 5, { method: "zscore" });
    expect(z.map((x) => x.score)).toEqual([0, 0, 0]);
    expect(z.map((x) => x.id)).toEqual(["a", "c", "b"]);
  });

  test("z-score: standardised per leg, a missing chunk gets the leg's lowest z", () => {
    const n = normalise(
      new Map([
        ["a", 3],
        ["b", 1],
      ]),
      "zscore",
    );
    expect(n.of.get("a")).toBeCloseTo(1, 12);
    expect(n.of.get("b")).toBeCloseTo(-1, 12);
    expect(n.missing).toBeCloseTo(-1, 12);
    const f = fuse(scored(["a", 3], ["b", 1]), scored(["b", 0.9], ["c", 0.1]), 5, { method: "zscore" });
    expect(new Map(f.map((x) => [x.id, x.score]))).toEqual(
      new Map([
        ["a", 1 + -1],
        ["b", -1 + 1],
        ["c", -1 + -1],
      ]),
    );
  });

  test("non-finite scores count as the leg's worst; weights scale each leg", () => {
    const n = normalise(
      new Map([
        ["a", 2],
        ["b", Number.NaN],
        ["c", 0],
      ]),
      "minmax",
    );
    expect([n.of.get("a"), n.of.get("b"), n.of.get("c")]).toEqual([1, 0, 0]);
    const bm = scored(["a", 2], ["b", 1]);
    const dn = scored(["b", 2], ["a", 1]);
    expect(fuse(bm, dn, 1, { method: "minmax", weights: { bm25: 2, dense: 1 } })[0]?.id).toBe("a");
    expect(fuse(bm, dn, 1, { method: "minmax", weights: { bm25: 1, dense: 2 } })[0]?.id).toBe("b");
  });

  test("the default fusion is what rankForMode uses for hybrid, and RRF keeps its own entry point", () => {
    const bm = scored(["a", 9], ["b", 3], ["c", 1]);
    const dn = scored(["c", 0.9], ["a", 0.2]);
    expect(rankForMode("hybrid", bm, dn, 3)).toEqual(fuse(bm, dn, 3, DEFAULT_FUSION));
    expect(fuseRrf(bm, dn, 3)).toEqual(fuse(bm, dn, 3, { method: "rrf", k: RRF_K }));
  });
});
