/**
 * Seeded randomness for fuzz tests (STYLE habit 13, after yjs tests/testHelper.js): the
 * seed is printed, and CAIRN_FUZZ_SEED=<n> replays a failing run exactly.
 */

export interface Prng {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  bool(pTrue?: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** mulberry32: tiny, fast, and good enough to drive schedules. */
export function prng(seed: number): Prng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (n) => Math.floor(next() * n),
    bool: (p = 0.5) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
  };
}

/** The run's base seed: CAIRN_FUZZ_SEED if set, else random; printed either way. */
export function fuzzSeed(suite: string): number {
  const fixed = process.env.CAIRN_FUZZ_SEED;
  const seed = fixed !== undefined && fixed !== "" ? Number(fixed) >>> 0 : Math.floor(Math.random() * 2 ** 32);
  process.stderr.write(`[fuzz] ${suite}: seed=${seed} (replay with CAIRN_FUZZ_SEED=${seed})\n`);
  return seed;
}
