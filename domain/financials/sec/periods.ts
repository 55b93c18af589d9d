/**
 * Fiscal periods of one company and the choice of one fact per (line, period): facts are
 * matched to a period by their fiscal label (not by exact dates, which drift by a day
 * between filings), the latest filing wins, and within a filing the chain order decides.
 */
import { addDays, classifyDuration, dayNumber, type FiscalCalendar, type FiscalPeriodCode } from "./calendar.ts";
import type { Chain } from "./concepts.ts";
import { type ConceptKey, type Fact, type FactIndex, newerFirst } from "./facts.ts";

export interface Period {
  /** `${fiscal_year}-${code}`, e.g. "2024-Q2". */
  key: string;
  fiscal_year: number;
  code: FiscalPeriodCode;
  kind: "quarter" | "annual";
  start: string;
  end: string;
}

export interface Picked {
  value: number;
  concept: ConceptKey;
  accn: string;
  filed: string;
}

export const periodKey = (fiscalYear: number, code: FiscalPeriodCode) => `${fiscalYear}-${code}`;

/** Sequence number of a quarter (fiscal_year * 4 + q - 1), for "the quarter before". */
export const quarterSeq = (p: Pick<Period, "fiscal_year" | "code">) =>
  p.code === "FY" ? null : p.fiscal_year * 4 + Number(p.code.slice(1)) - 1;

export class PeriodResolver {
  private readonly labels = new Map<
    string,
    { key: string; kind: "quarter" | "annual"; fy: number; code: FiscalPeriodCode } | null
  >();
  private readonly byLabel = new Map<ConceptKey, Map<string, Fact[]>>();

  constructor(
    readonly index: FactIndex,
    readonly calendar: FiscalCalendar,
  ) {}

  /** The fiscal label of a duration, or null for year-to-date and odd lengths. */
  labelOf(start: string, end: string) {
    const memo = `${start}|${end}`;
    if (this.labels.has(memo)) return this.labels.get(memo) ?? null;
    const cls = classifyDuration(start, end);
    let out: { key: string; kind: "quarter" | "annual"; fy: number; code: FiscalPeriodCode } | null = null;
    if (cls === "quarter" || cls === "annual") {
      const l = this.calendar.label(end, cls);
      if (l) {
        const code: FiscalPeriodCode = l.quarter === null ? "FY" : (`Q${l.quarter}` as FiscalPeriodCode);
        out = { key: periodKey(l.fiscal_year, code), kind: cls, fy: l.fiscal_year, code };
      }
    }
    this.labels.set(memo, out);
    return out;
  }

  /** Facts of a concept grouped by period key, each list newest filing first. */
  private grouped(key: ConceptKey): Map<string, Fact[]> {
    let g = this.byLabel.get(key);
    if (g) return g;
    g = new Map();
    for (const f of this.index.of(key)) {
      if (f.start === null) continue;
      const l = this.labelOf(f.start, f.end);
      if (!l) continue;
      const list = g.get(l.key);
      if (list) list.push(f);
      else g.set(l.key, [f]);
    }
    this.byLabel.set(key, g);
    return g;
  }

  /** Every quarter and fiscal year some concept of `chains` reports, oldest first. */
  periods(chains: readonly Chain[]): Period[] {
    const spans = new Map<string, Map<string, number>>();
    const meta = new Map<string, { kind: "quarter" | "annual"; fy: number; code: FiscalPeriodCode }>();
    for (const chain of chains) {
      for (const concept of chain) {
        for (const [key, facts] of this.grouped(concept)) {
          const counts = spans.get(key) ?? new Map<string, number>();
          spans.set(key, counts);
          for (const f of facts) {
            const span = `${f.start}|${f.end}`;
            counts.set(span, (counts.get(span) ?? 0) + 1);
            const l = this.labelOf(f.start ?? "", f.end);
            if (l) meta.set(key, l);
          }
        }
      }
    }
    const out: Period[] = [];
    for (const [key, counts] of spans) {
      const m = meta.get(key);
      if (!m) continue;
      // The span most filings agree on names the period's dates.
      let best = "";
      let bestN = -1;
      for (const [span, n] of counts) if (n > bestN || (n === bestN && span > best)) [best, bestN] = [span, n];
      const [start = "", end = ""] = best.split("|");
      out.push({ key, fiscal_year: m.fy, code: m.code, kind: m.kind, start, end });
    }
    return out.sort((a, b) => (a.end === b.end ? (a.kind === "annual" ? 1 : -1) : a.end < b.end ? -1 : 1));
  }

  /** The fact for a line in a period: latest filing first, then chain order. */
  pickPeriod(chain: Chain, periodKeyValue: string, unit: string): Picked | null {
    const cands: { f: Fact; rank: number }[] = [];
    chain.forEach((concept, rank) => {
      for (const f of this.grouped(concept).get(periodKeyValue) ?? []) if (f.unit === unit) cands.push({ f, rank });
    });
    return best(cands);
  }

  /** A duration fact for exactly [start, end] (start may differ by up to 3 days). */
  pickSpan(chain: Chain, start: string, end: string, unit: string): Picked | null {
    const s = dayNumber(start);
    const cands: { f: Fact; rank: number }[] = [];
    chain.forEach((concept, rank) => {
      for (const f of this.index.of(concept)) {
        if (f.unit !== unit || f.start === null || f.end !== end) continue;
        if (Math.abs(dayNumber(f.start) - s) <= 3) cands.push({ f, rank });
      }
    });
    return best(cands);
  }

  /** An instant (balance-sheet) fact at `date`. */
  pickInstant(chain: Chain, date: string, unit: string): Picked | null {
    const cands: { f: Fact; rank: number }[] = [];
    chain.forEach((concept, rank) => {
      for (const f of this.index.instant(concept, date, unit)) cands.push({ f, rank });
    });
    return best(cands);
  }

  /** The latest filing reporting any of `chains` for the period (the reference filing). */
  referenceFiling(chains: readonly Chain[], periodKeyValue: string): { accn: string; filed: string } | null {
    let ref: Fact | null = null;
    for (const chain of chains)
      for (const concept of chain)
        for (const f of this.grouped(concept).get(periodKeyValue) ?? []) if (!ref || newerFirst(f, ref) < 0) ref = f;
    return ref ? { accn: ref.accn, filed: ref.filed } : null;
  }
}

/** The rounding unit of a reported amount: the largest power of ten (up to 10^9) dividing it. */
export function roundingUnit(v: number): number {
  if (!Number.isInteger(v) || v === 0) return 0;
  let unit = 1;
  while (unit < 1e9 && v % (unit * 10) === 0) unit *= 10;
  return unit;
}

/**
 * Chain order first: a lower-ranked concept is used only when no filing reports a higher
 * one for the period (so a later filing that tags, say, equity including minority
 * interests does not replace the parent's equity). Within the concept the latest filing
 * wins (a restatement replaces the original), except that a later figure that merely
 * repeats an earlier one rounded to a coarser unit (a 10-K's quarterly table in millions
 * after a 10-Q in thousands) is not a restatement, and the precise figure is kept.
 */
function best(cands: { f: Fact; rank: number }[]): Picked | null {
  if (cands.length === 0) return null;
  const top = Math.min(...cands.map((c) => c.rank));
  const same = cands
    .filter((c) => c.rank === top)
    .map((c) => c.f)
    .sort(newerFirst);
  let pick = same[0] as Fact;
  const unit = roundingUnit(pick.val);
  if (unit >= 1000) {
    const finer = same.find((f) => roundingUnit(f.val) < unit && Math.abs(f.val - pick.val) <= unit / 2);
    if (finer) pick = finer;
  }
  return { value: pick.val, concept: `${pick.taxonomy}:${pick.concept}`, accn: pick.accn, filed: pick.filed };
}

/** The day after a date (the start of the period that follows one ending there). */
export const dayAfter = (iso: string) => addDays(iso, 1);
