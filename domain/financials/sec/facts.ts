/**
 * One XBRL fact as the SEC companyfacts API reports it, and an index over a company's
 * facts by concept. The API lists a fact once per filing that reported it, so the same
 * (concept, period) appears in the original filing and in every later one that repeats
 * or restates it; "latest filed wins" picks among those.
 */
import type { StoredFact } from "../fields.ts";

/** One fact (the companyfacts API shape; `fy`/`fp`/`form`/`filed` describe the filing). */
export type Fact = StoredFact;

/** "taxonomy:Concept", how concept chains name their members. */
export type ConceptKey = `${string}:${string}`;

export const keyOf = (f: Pick<Fact, "taxonomy" | "concept">): ConceptKey => `${f.taxonomy}:${f.concept}`;

/** Newer filing first; among one day's filings the larger accession number. */
export function newerFirst(a: Pick<Fact, "filed" | "accn">, b: Pick<Fact, "filed" | "accn">): number {
  if (a.filed !== b.filed) return a.filed < b.filed ? 1 : -1;
  return a.accn < b.accn ? 1 : a.accn > b.accn ? -1 : 0;
}

export class FactIndex {
  private readonly byKey = new Map<ConceptKey, Fact[]>();

  constructor(readonly facts: readonly Fact[]) {
    for (const f of facts) {
      const k = keyOf(f);
      const list = this.byKey.get(k);
      if (list) list.push(f);
      else this.byKey.set(k, [f]);
    }
    for (const list of this.byKey.values()) list.sort(newerFirst);
  }

  /** Facts of one concept, newest filing first. */
  of(key: ConceptKey): readonly Fact[] {
    return this.byKey.get(key) ?? [];
  }

  keys(): IterableIterator<ConceptKey> {
    return this.byKey.keys();
  }

  /** Duration facts of a concept for exactly [start, end], newest filing first. */
  duration(key: ConceptKey, start: string, end: string, unit?: string): Fact[] {
    return this.of(key).filter((f) => f.start === start && f.end === end && (unit === undefined || f.unit === unit));
  }

  /** Instant facts of a concept at `end`, newest filing first. */
  instant(key: ConceptKey, end: string, unit?: string): Fact[] {
    return this.of(key).filter((f) => f.start === null && f.end === end && (unit === undefined || f.unit === unit));
  }
}

/**
 * The latest reported value of every (concept, unit): the fact with the latest period end,
 * and among those the latest filing. This is the company-facts summary a client reads.
 */
export function latestPerConcept(facts: readonly Fact[]): Fact[] {
  const best = new Map<string, Fact>();
  for (const f of facts) {
    const k = `${f.taxonomy}:${f.concept}|${f.unit}`;
    const cur = best.get(k);
    if (!cur || f.end > cur.end || (f.end === cur.end && newerFirst(f, cur) < 0)) best.set(k, f);
  }
  const order = (f: Fact) => `${f.taxonomy}:${f.concept}|${f.unit}`;
  return [...best.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}
