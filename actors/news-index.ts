/**
 * Which subscribers want an article, without looking at every subscriber.
 *
 * Each subscriber is filed under one "home" field: the most selective field its filter
 * constrains (tickers, then countries, categories, source types, sentiment, min_impact;
 * a filter with no constraint at all is filed under "all"). A subscriber can match an
 * article only if the article satisfies the home constraint, so for an article the
 * candidates are just the buckets of the article's own values (one bucket per ticker it
 * mentions, per country, ...), the min_impact list up to the article's score, and the
 * "all" set. Each candidate is then checked against the rest of its filter with set
 * lookups. The work per article follows the number of plausible subscribers, not the
 * number connected: 10,000 watch-lists of a few tickers each cost a handful of bucket
 * reads for an article that mentions two tickers.
 *
 * The semantics are those of domain `matches` (OR within a field, AND across fields, an
 * empty or absent field matches everything); a seeded fuzz test holds the two together.
 */
import type { Article, NewsFilter, SentimentLabel, SourceType } from "../domain/news.ts";

/** A filter in the shape matching needs: sets for O(1) membership, null = unconstrained. */
export interface CompiledFilter {
  tickers: ReadonlySet<string> | null;
  categories: ReadonlySet<string> | null;
  countries: ReadonlySet<string> | null;
  sourceTypes: ReadonlySet<SourceType> | null;
  sentiment: SentimentLabel | null;
  minImpact: number | null;
}

const setOf = <T>(values: readonly T[] | undefined): ReadonlySet<T> | null =>
  values && values.length > 0 ? new Set(values) : null;

export function compileFilter(f: NewsFilter): CompiledFilter {
  return {
    tickers: setOf(f.tickers),
    categories: setOf(f.categories),
    countries: setOf(f.countries),
    sourceTypes: setOf(f.source_types),
    sentiment: f.sentiment ?? null,
    minImpact: f.min_impact ?? null,
  };
}

const anyIn = (want: ReadonlySet<string> | null, have: readonly string[]): boolean => {
  if (want === null) return true;
  for (const v of have) if (want.has(v)) return true;
  return false;
};

/** domain `matches`, on a compiled filter. */
export function matchesCompiled(f: CompiledFilter, a: Article): boolean {
  return (
    anyIn(f.tickers, a.company_tickers) &&
    anyIn(f.categories, a.categories) &&
    anyIn(f.countries, a.country_codes) &&
    (f.sourceTypes === null || f.sourceTypes.has(a.source_type)) &&
    (f.sentiment === null || f.sentiment === a.sentiment_label) &&
    (f.minImpact === null || a.impact_score >= f.minImpact)
  );
}

type SetField = "tickers" | "countries" | "categories" | "sourceTypes" | "sentiment";
type Home = SetField | "impact" | "all";

/** Most selective first: the number of distinct values each field usually takes. */
const HOME_ORDER: readonly SetField[] = ["tickers", "countries", "categories", "sourceTypes", "sentiment"];

interface Entry<S> {
  sub: S;
  filter: CompiledFilter;
  home: Home;
  /** The match() call that last visited this entry; dedupes a subscriber hit via several values. */
  stamp: number;
}

function homeOf(f: CompiledFilter): Home {
  for (const field of HOME_ORDER) if (f[field] !== null) return field;
  return f.minImpact !== null ? "impact" : "all";
}

function homeValues(f: CompiledFilter, home: SetField): Iterable<string> {
  if (home === "sentiment") return f.sentiment === null ? [] : [f.sentiment];
  return f[home] ?? [];
}

function articleValues(a: Article, field: SetField): readonly string[] {
  switch (field) {
    case "tickers":
      return a.company_tickers;
    case "countries":
      return a.country_codes;
    case "categories":
      return a.categories;
    case "sourceTypes":
      return [a.source_type];
    case "sentiment":
      return [a.sentiment_label];
  }
}

export interface NewsIndexStats {
  subscribers: number;
  /** Subscribers per home field. */
  byHome: Record<Home, number>;
}

export class NewsIndex<S> {
  private readonly entries = new Map<S, Entry<S>>();
  private readonly buckets: Record<SetField, Map<string, Set<Entry<S>>>> = {
    tickers: new Map(),
    countries: new Map(),
    categories: new Map(),
    sourceTypes: new Map(),
    sentiment: new Map(),
  };
  /** min_impact-only subscribers, ascending by threshold: a match is a prefix of this list. */
  private impact: Entry<S>[] = [];
  private readonly all = new Set<Entry<S>>();
  private epoch = 0;
  /** Kept as entries come and go, so stats() is O(1) (it is read by metrics, not just tests). */
  private readonly byHome: Record<Home, number> = {
    tickers: 0,
    countries: 0,
    categories: 0,
    sourceTypes: 0,
    sentiment: 0,
    impact: 0,
    all: 0,
  };

  get size(): number {
    return this.entries.size;
  }

  /** Files the subscriber under its filter, replacing any filter it had. */
  set(sub: S, filter: CompiledFilter): void {
    this.remove(sub);
    const entry: Entry<S> = { sub, filter, home: homeOf(filter), stamp: 0 };
    this.entries.set(sub, entry);
    const home = entry.home;
    this.byHome[home]++;
    if (home === "all") this.all.add(entry);
    else if (home === "impact") this.impact.splice(this.impactSlot(filter.minImpact ?? 0), 0, entry);
    else {
      const buckets = this.buckets[home];
      for (const v of homeValues(filter, home)) {
        let bucket = buckets.get(v);
        if (!bucket) {
          bucket = new Set();
          buckets.set(v, bucket);
        }
        bucket.add(entry);
      }
    }
  }

  remove(sub: S): boolean {
    const entry = this.entries.get(sub);
    if (!entry) return false;
    this.entries.delete(sub);
    const home = entry.home;
    this.byHome[home]--;
    if (home === "all") this.all.delete(entry);
    else if (home === "impact") {
      // Equal thresholds sit together; search from the first slot of this threshold.
      for (let i = this.impactSlot(entry.filter.minImpact ?? 0); i < this.impact.length; i++) {
        if (this.impact[i] === entry) {
          this.impact.splice(i, 1);
          break;
        }
      }
    } else {
      const buckets = this.buckets[home];
      for (const v of homeValues(entry.filter, home)) {
        const bucket = buckets.get(v);
        bucket?.delete(entry);
        if (bucket?.size === 0) buckets.delete(v);
      }
    }
    return true;
  }

  /** Calls visit once for every subscriber whose filter matches the article; returns how many. */
  match(a: Article, visit: (sub: S) => void): number {
    const epoch = ++this.epoch;
    let n = 0;
    for (const field of HOME_ORDER) {
      const buckets = this.buckets[field];
      if (buckets.size === 0) continue;
      for (const v of articleValues(a, field)) {
        const bucket = buckets.get(v);
        if (!bucket) continue;
        for (const e of bucket) {
          if (e.stamp === epoch) continue;
          e.stamp = epoch;
          if (matchesCompiled(e.filter, a)) {
            visit(e.sub);
            n++;
          }
        }
      }
    }
    // Every entry here has only a threshold, so the prefix up to the score is the answer.
    for (const e of this.impact) {
      if (!(a.impact_score >= (e.filter.minImpact ?? 0))) break;
      visit(e.sub);
      n++;
    }
    for (const e of this.all) {
      visit(e.sub);
      n++;
    }
    return n;
  }

  stats(): NewsIndexStats {
    return { subscribers: this.entries.size, byHome: { ...this.byHome } };
  }

  /** First position whose threshold is >= t (binary search). */
  private impactSlot(t: number): number {
    let lo = 0;
    let hi = this.impact.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.impact[mid]?.filter.minImpact ?? 0) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
