/**
 * The shared benchmark runner (STYLE habit 14, after bun bench/runner.mjs): each scenario
 * is one file that measures, then prints JSON lines to stdout, one per result:
 *
 *   {"bench":"actors-mailbox/actor","metric":"throughput","value":1.2e7,"unit":"msg/s",
 *    "peer":"actors-mailbox/array-queue","ratio":0.83}
 *
 * Every benchmark names its peer or ceiling and reports ratio = value / peer's value, so
 * a result reads on its own ("83 % of a bare array queue") and machines can diff runs.
 * Nothing here asserts on timings; that belongs to a human or a trend, not to CI.
 *
 * Knobs: BENCH_QUICK=1 shortens every loop (a smoke run); BENCH_ROUNDS overrides rounds.
 */

export interface BenchLine {
  bench: string;
  metric: string;
  value: number;
  unit: string;
  /** The `bench` name of the line this one is compared with, or null for a ceiling itself. */
  peer: string | null;
  /** value / peer's value (same metric and unit); null without a peer. */
  ratio: number | null;
}

export const QUICK = process.env.BENCH_QUICK === "1";

export function emit(line: BenchLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Emits the peer's line, then the subject's line with the ratio between them. */
export function emitPair(
  subject: { bench: string; value: number },
  peer: { bench: string; value: number },
  metric: string,
  unit: string,
): void {
  emit({ bench: peer.bench, metric, value: round(peer.value), unit, peer: null, ratio: null });
  emit({
    bench: subject.bench,
    metric,
    value: round(subject.value),
    unit,
    peer: peer.bench,
    ratio: peer.value === 0 ? null : round(subject.value / peer.value, 4),
  });
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Nearest-rank percentile of an ascending array; p in [0, 100]. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export interface Summary {
  n: number;
  mean: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return {
    n: s.length,
    mean,
    min: s[0] ?? Number.NaN,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s.at(-1) ?? Number.NaN,
  };
}

/** Milliseconds taken by fn (sync or async), on the monotonic clock. */
export async function timeIt(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * Runs `round` `warmup` times unmeasured (JIT, caches), then `rounds` times, returning
 * each round's duration in ms. Rounds of different contenders should be interleaved by
 * the caller (see `compareRounds`) so drift in machine load hits both alike.
 */
export async function measureRounds(
  round: () => unknown,
  opts: { rounds?: number; warmup?: number } = {},
): Promise<number[]> {
  const rounds = opts.rounds ?? defaultRounds();
  for (let i = 0; i < (opts.warmup ?? 2); i++) await round();
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) out.push(await timeIt(round));
  return out;
}

/**
 * Times two contenders in alternating rounds (A, B, A, B, ...) after a shared warmup and
 * returns each one's per-round durations in ms.
 */
export async function compareRounds(
  a: () => unknown,
  b: () => unknown,
  opts: { rounds?: number; warmup?: number } = {},
): Promise<{ a: number[]; b: number[] }> {
  const rounds = opts.rounds ?? defaultRounds();
  for (let i = 0; i < (opts.warmup ?? 2); i++) {
    await a();
    await b();
  }
  const out = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    out.a.push(await timeIt(a));
    out.b.push(await timeIt(b));
  }
  return out;
}

/** Operations per second from a per-round duration list (uses the median round). */
export function opsPerSecond(opsPerRound: number, roundMs: readonly number[]): number {
  const p50 = summarize(roundMs).p50;
  return p50 > 0 ? (opsPerRound / p50) * 1000 : Number.NaN;
}

export function defaultRounds(): number {
  const env = Number(process.env.BENCH_ROUNDS);
  if (Number.isInteger(env) && env > 0) return env;
  return QUICK ? 3 : 9;
}
