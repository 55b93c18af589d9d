/**
 * Stock splits, detected from the filings themselves: after a split, filers restate prior
 * periods' share counts and per-share amounts on the new basis, so the same (concept,
 * period) appears in an older filing and a newer one with values in an integer ratio.
 * Each such pair brackets the split between the two filing dates; pairs that agree on
 * the ratio and whose brackets overlap are one split. Every share count and per-share
 * amount we serve is then restated to the basis of the company's latest filing.
 */
import { type Fact, newerFirst } from "./facts.ts";

export interface Split {
  /** New shares per old share (4 for a 4-for-1 split; 0.1 for a 1-for-10 reverse split). */
  ratio: number;
  /** Filing date of the last filing seen on the old basis. */
  oldBasisUntil: string;
  /** Filing date of the first filing seen on the new basis. */
  newBasisFrom: string;
  /** How many (concept, period) restatements support it. */
  evidence: number;
}

/** Share-count concepts (values grow by the ratio) and per-share ones (shrink by it). */
const SHARE_CONCEPTS = new Set([
  "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic",
  "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding",
  "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted",
]);
const PER_SHARE_CONCEPTS = new Set([
  "us-gaap:EarningsPerShareBasic",
  "us-gaap:EarningsPerShareDiluted",
  "us-gaap:EarningsPerShareBasicAndDiluted",
]);

/** Ratios a split can have: whole numbers and the x/2 ones (3-for-2, 5-for-2). */
function splitRatio(r: number, tolerance: number): number | null {
  const candidates: number[] = [];
  for (let n = 2; n <= 50; n++) candidates.push(n);
  candidates.push(1.5, 2.5);
  for (const c of candidates) {
    if (Math.abs(r - c) <= c * tolerance) return c;
    if (Math.abs(1 / r - c) <= c * tolerance) return 1 / c;
  }
  return null;
}

interface Evidence {
  ratio: number;
  lo: string;
  hi: string;
}

/** Share counts are exact to the share; allow 1% for counts reported in thousands. */
const SHARE_TOLERANCE = 0.01;

function evidenceFrom(facts: readonly Fact[]): Evidence[] {
  const groups = new Map<string, Fact[]>();
  for (const f of facts) {
    const key = `${f.taxonomy}:${f.concept}`;
    const perShare = PER_SHARE_CONCEPTS.has(key);
    if (!perShare && !SHARE_CONCEPTS.has(key)) continue;
    if (f.start === null || f.val === 0) continue;
    const g = `${key}|${f.start}|${f.end}`;
    const list = groups.get(g);
    if (list) list.push(f);
    else groups.set(g, [f]);
  }
  const out: Evidence[] = [];
  for (const [g, list] of groups) {
    const perShare = PER_SHARE_CONCEPTS.has(g.split("|")[0] ?? "");
    const byFiling = [...list].sort(newerFirst).reverse(); // oldest filing first
    for (let i = 1; i < byFiling.length; i++) {
      const a = byFiling[i - 1];
      const b = byFiling[i];
      if (!a || !b || a.filed === b.filed || Math.sign(a.val) !== Math.sign(b.val)) continue;
      const r = perShare ? a.val / b.val : b.val / a.val;
      // Per-share amounts are rounded to cents: the ratio is only as precise as that.
      const tol = perShare ? 0.005 / Math.abs(a.val) + 0.005 / Math.abs(b.val) + 0.002 : SHARE_TOLERANCE;
      if (perShare && Math.min(Math.abs(a.val), Math.abs(b.val)) < 0.1) continue;
      if (r > 0.8 && r < 1.25) continue;
      const ratio = splitRatio(r, tol);
      if (ratio !== null) out.push({ ratio, lo: a.filed, hi: b.filed });
    }
  }
  return out;
}

/**
 * A filing's share level: its cover-page shares outstanding, else the weighted basic shares
 * of its latest period. Levels move a few percent a year, a split moves them by its ratio.
 */
function shareLevels(facts: readonly Fact[]): Map<string, { filed: string; level: number }> {
  const cover = new Map<string, Fact>();
  const weighted = new Map<string, Fact>();
  for (const f of facts) {
    if (f.val <= 0) continue;
    const key = `${f.taxonomy}:${f.concept}`;
    const into =
      key === "dei:EntityCommonStockSharesOutstanding"
        ? cover
        : key === "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic"
          ? weighted
          : null;
    if (!into) continue;
    const cur = into.get(f.accn);
    if (!cur || f.end > cur.end) into.set(f.accn, f);
  }
  const out = new Map<string, { filed: string; level: number }>();
  for (const [accn, f] of weighted) out.set(accn, { filed: f.filed, level: f.val });
  for (const [accn, f] of cover) out.set(accn, { filed: f.filed, level: f.val });
  return out;
}

/**
 * Narrows each bracket with the filings inside it that restated nothing: a filing whose
 * share level sits nearer the old-basis level is on the old basis, and vice versa. A split
 * seen only in a later year's comparatives otherwise leaves months of filings ambiguous.
 */
function narrow(splits: Split[], facts: readonly Fact[]): void {
  const levels = [...shareLevels(facts).values()].sort((a, b) => (a.filed < b.filed ? -1 : 1));
  const at = (filed: string) => levels.find((l) => l.filed === filed)?.level;
  for (const s of splits) {
    const oldLevel = at(s.oldBasisUntil);
    const newLevel = at(s.newBasisFrom);
    if (oldLevel === undefined || newLevel === undefined) continue;
    for (const l of levels) {
      if (l.filed <= s.oldBasisUntil || l.filed >= s.newBasisFrom) continue;
      const toOld = Math.abs(Math.log(l.level / oldLevel));
      const toNew = Math.abs(Math.log(l.level / newLevel));
      if (toOld < toNew) s.oldBasisUntil = l.filed;
    }
    for (const l of [...levels].reverse()) {
      if (l.filed <= s.oldBasisUntil || l.filed >= s.newBasisFrom) continue;
      const toOld = Math.abs(Math.log(l.level / oldLevel));
      const toNew = Math.abs(Math.log(l.level / newLevel));
      if (toNew < toOld) s.newBasisFrom = l.filed;
    }
  }
}

/** Splits with at least two supporting restatements, oldest first. */
export function detectSplits(facts: readonly Fact[]): Split[] {
  const ev = evidenceFrom(facts).sort((a, b) => (a.hi < b.hi ? -1 : a.hi > b.hi ? 1 : 0));
  const clusters: Split[] = [];
  for (const e of ev) {
    // Same ratio and overlapping brackets: the split lies in their intersection.
    const overlaps = (s: Split) => e.lo < s.newBasisFrom && s.oldBasisUntil < e.hi;
    const c = clusters.find((s) => s.ratio === e.ratio && overlaps(s));
    if (c) {
      if (e.lo > c.oldBasisUntil) c.oldBasisUntil = e.lo;
      if (e.hi < c.newBasisFrom) c.newBasisFrom = e.hi;
      c.evidence++;
    } else {
      clusters.push({ ratio: e.ratio, oldBasisUntil: e.lo, newBasisFrom: e.hi, evidence: 1 });
    }
  }
  const found = clusters.filter((s) => s.evidence >= 2).sort((a, b) => (a.newBasisFrom < b.newBasisFrom ? -1 : 1));
  narrow(found, facts);
  return found;
}

/**
 * Factor that restates a share count reported on the basis in force on `basisDate` to the
 * latest basis (divide per-share amounts by it). A date inside a split's bracket (between
 * the last old-basis and the first new-basis filing) is ambiguous and yields null.
 */
export function splitFactor(splits: readonly Split[], basisDate: string): number | null {
  let factor = 1;
  for (const s of splits) {
    if (basisDate <= s.oldBasisUntil) factor *= s.ratio;
    else if (basisDate < s.newBasisFrom) return null;
  }
  return factor;
}

/**
 * Factor for a filing's values: a filing inside a bracket is taken to be on the new basis,
 * since filers restate share data in every filing made after a split takes effect, and
 * the bracket's old-basis end is the last filing that demonstrably did not.
 */
export function filingSplitFactor(splits: readonly Split[], filed: string): number {
  let factor = 1;
  for (const s of splits) if (filed <= s.oldBasisUntil) factor *= s.ratio;
  return factor;
}
