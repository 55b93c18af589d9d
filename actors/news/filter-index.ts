/**
 * Which subscribers want an article, without looking at every subscriber.
 *
 * Each subscriber is filed under keys built from the list fields its filter constrains
 * (tickers, countries, categories, source types, sentiment): one key per combination of
 * its values across those fields, e.g. {categories: [earnings], countries: [US, GB]}
 * files under "earnings|US" and "earnings|GB" in the (categories, countries) table. A
 * subscriber can match an article only if the article carries one of its combinations,
 * so for an article the candidates are the entries under the article's own combinations
 * in each table in use, plus the min_impact-only list up to the article's score, plus the
 * unconstrained ("all") set. Each candidate is then checked against its whole filter
 * with set lookups, of the fields left out of its key only: the fields in the key matched
 * by construction (the bucket's key is one of the article's own value combinations).
 *
 * A bucket is an array sorted by min_impact (none first), so the candidates of an article
 * are the bucket's prefix up to its impact_score: a watch-list with a high impact bar
 * ("earnings in the US above 0.6") costs nothing for the articles below the bar. Buckets
 * are replaced, never edited in place, so a visit that connects or disconnects someone
 * cannot disturb the loop that is calling it.
 *
 * Combining fields matters: a filter on a source type and a sentiment keyed by the source
 * type alone would be a candidate for a fifth of all articles; keyed by both, for one in
 * fifteen. A filter whose combinations would exceed MAX_KEYS (a 500-ticker watch-list
 * across several categories) keeps the fields with the fewest values that fit, and
 * always at least one. The work per article follows the number of plausible subscribers,
 * not the number connected.
 *
 * The semantics are those of domain `matches` (OR within a field, AND across fields, an
 * empty or absent field matches everything); a seeded fuzz test holds the two together.
 */
import type { Article, NewsFilter, SentimentLabel, SourceType } from "../../domain/news/types.ts";

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

const FIELDS = ["tickers", "countries", "categories", "sourceTypes", "sentiment"] as const;
type KeyField = (typeof FIELDS)[number];

/** Most keys one filter is filed under (the product of its keyed fields' value counts). */
const MAX_KEYS = 64;
const SEP = "\u0000";

interface Entry<S> {
  sub: S;
  filter: CompiledFilter;
  /** min_impact, or -Infinity: the bucket sort key. */
  threshold: number;
  /** What a keyed candidate still has to match (fields outside its key); null: nothing. */
  rest: CompiledFilter | null;
  /** Bit i set: FIELDS[i] is part of the key; 0 for the impact list and the "all" set. */
  mask: number;
  keys: string[];
  /** The match() call that last visited this entry; dedupes a subscriber hit via several keys. */
  stamp: number;
}

function filterValues(f: CompiledFilter, field: KeyField): readonly string[] | null {
  if (field === "sentiment") return f.sentiment === null ? null : [f.sentiment];
  const set = f[field];
  return set === null ? null : [...set];
}

function articleValues(a: Article, field: KeyField): readonly string[] {
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

/** Every combination of one value per list, joined (lists in FIELDS order). */
function combinations(lists: readonly (readonly string[])[]): string[] {
  let out: string[] = [];
  for (const [i, list] of lists.entries()) {
    if (i === 0) {
      out = [...list];
      continue;
    }
    const next: string[] = [];
    for (const prefix of out) for (const v of list) next.push(prefix + SEP + v);
    out = next;
  }
  return out;
}

/** The key fields (as a mask) and keys a filter is filed under; mask 0 when it has none. */
function keysOf(f: CompiledFilter): { mask: number; keys: string[] } {
  const constrained: { bit: number; values: readonly string[] }[] = [];
  for (const [i, field] of FIELDS.entries()) {
    const values = filterValues(f, field);
    if (values !== null) constrained.push({ bit: 1 << i, values });
  }
  if (constrained.length === 0) return { mask: 0, keys: [] };
  // Fewest values first: they narrow the most per key spent.
  constrained.sort((x, y) => x.values.length - y.values.length);
  let mask = 0;
  let product = 1;
  for (const c of constrained) {
    if (mask !== 0 && product * c.values.length > MAX_KEYS) continue;
    mask |= c.bit;
    product *= c.values.length;
  }
  // Keys list the fields in FIELDS order, as match() builds them from an article.
  const lists = constrained
    .filter((c) => mask & c.bit)
    .sort((x, y) => x.bit - y.bit)
    .map((c) => c.values);
  return { mask, keys: combinations(lists) };
}

/**
 * The part of a keyed filter its bucket does not settle: the fields outside the key. The
 * threshold is settled by the bucket's order, so min_impact is left out too. Null when
 * nothing is left (a ticker watch-list: the common case costs no check at all).
 */
function restOf(f: CompiledFilter, mask: number): CompiledFilter | null {
  if (mask === 0) return null;
  const keyed = (field: KeyField) => (mask & (1 << FIELDS.indexOf(field))) !== 0;
  const rest: CompiledFilter = {
    tickers: keyed("tickers") ? null : f.tickers,
    categories: keyed("categories") ? null : f.categories,
    countries: keyed("countries") ? null : f.countries,
    sourceTypes: keyed("sourceTypes") ? null : f.sourceTypes,
    sentiment: keyed("sentiment") ? null : f.sentiment,
    minImpact: null,
  };
  const open = Object.values(rest).every((v) => v === null);
  return open ? null : rest;
}

export interface NewsIndexStats {
  subscribers: number;
  /** Subscribers filed under keys, by the fields keyed ("countries+categories"). */
  keyed: Record<string, number>;
  /** Subscribers with only a min_impact. */
  impact: number;
  /** Subscribers with no constraint. */
  all: number;
}

/** One key table: the fields it keys (in FIELDS order) and its buckets. */
interface Table<S> {
  mask: number;
  fields: KeyField[];
  buckets: Map<string, Entry<S>[]>;
}

/** First position in a threshold-sorted bucket whose threshold is > t. */
function after<S>(bucket: readonly Entry<S>[], t: number): number {
  let lo = 0;
  let hi = bucket.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((bucket[mid] as Entry<S>).threshold <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class NewsIndex<S> {
  private readonly entries = new Map<S, Entry<S>>();
  /** mask -> table. Only masks some subscriber uses are present. */
  private readonly tables = new Map<number, Table<S>>();
  /** The same tables as an array: match() walks it without allocating iterator entries. */
  private tableList: Table<S>[] = [];
  /** min_impact-only subscribers, ascending by threshold: a match is a prefix of this list. */
  private impact: Entry<S>[] = [];
  private readonly all = new Set<Entry<S>>();
  private epoch = 0;
  /** Subscribers per mask, kept as they come and go so stats() stays cheap. */
  private readonly perMask = new Map<number, number>();

  get size(): number {
    return this.entries.size;
  }

  /** Files the subscriber under its filter, replacing any filter it had. */
  set(sub: S, filter: CompiledFilter): void {
    this.remove(sub);
    const { mask, keys } = keysOf(filter);
    const threshold = filter.minImpact ?? Number.NEGATIVE_INFINITY;
    const entry: Entry<S> = { sub, filter, threshold, rest: restOf(filter, mask), mask, keys, stamp: 0 };
    this.entries.set(sub, entry);
    if (mask !== 0) {
      this.perMask.set(mask, (this.perMask.get(mask) ?? 0) + 1);
      let table = this.tables.get(mask);
      if (!table) {
        table = { mask, fields: FIELDS.filter((_, i) => mask & (1 << i)), buckets: new Map() };
        this.tables.set(mask, table);
        this.tableList = [...this.tables.values()];
      }
      for (const k of keys) {
        const bucket = table.buckets.get(k) ?? [];
        // A key may repeat only if the filter repeats a value; sets rule that out.
        const at = after(bucket, threshold);
        table.buckets.set(k, [...bucket.slice(0, at), entry, ...bucket.slice(at)]);
      }
    } else if (filter.minImpact !== null) {
      this.impact.splice(this.impactSlot(filter.minImpact), 0, entry);
    } else {
      this.all.add(entry);
    }
  }

  remove(sub: S): boolean {
    const entry = this.entries.get(sub);
    if (!entry) return false;
    this.entries.delete(sub);
    if (entry.mask !== 0) {
      const left = (this.perMask.get(entry.mask) ?? 1) - 1;
      if (left === 0) this.perMask.delete(entry.mask);
      else this.perMask.set(entry.mask, left);
      const table = this.tables.get(entry.mask);
      for (const k of entry.keys) {
        const bucket = table?.buckets.get(k);
        if (!table || !bucket) continue;
        const rest = bucket.filter((e) => e !== entry);
        if (rest.length === 0) table.buckets.delete(k);
        else table.buckets.set(k, rest);
      }
      if (table?.buckets.size === 0) {
        this.tables.delete(entry.mask);
        this.tableList = [...this.tables.values()];
      }
    } else if (entry.filter.minImpact !== null) {
      // Equal thresholds sit together; search from the first slot of this threshold.
      for (let i = this.impactSlot(entry.filter.minImpact); i < this.impact.length; i++) {
        if (this.impact[i] === entry) {
          this.impact.splice(i, 1);
          break;
        }
      }
    } else {
      this.all.delete(entry);
    }
    return true;
  }

  /** Calls visit once for every subscriber whose filter matches the article; returns how many. */
  match(a: Article, visit: (sub: S) => void): number {
    const epoch = ++this.epoch;
    let n = 0;
    // A NaN score meets no threshold but must still reach the filters without one.
    const score = Number.isNaN(a.impact_score) ? Number.NEGATIVE_INFINITY : a.impact_score;
    for (const table of this.tableList) {
      const { fields, buckets } = table;
      // One keyed field (a ticker watch-list, the common case): the article's values are the keys.
      const keys =
        fields.length === 1
          ? articleValues(a, fields[0] as KeyField)
          : combinations(fields.map((f) => articleValues(a, f)));
      for (const key of keys) {
        const bucket = buckets.get(key);
        if (bucket === undefined) continue;
        for (let i = 0; i < bucket.length; i++) {
          const e = bucket[i] as Entry<S>;
          // Sorted by threshold: the rest of the bucket wants more impact than this article has.
          if (e.threshold > score) break;
          if (e.stamp === epoch) continue;
          e.stamp = epoch;
          if (e.rest === null || matchesCompiled(e.rest, a)) {
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
    const keyed: Record<string, number> = {};
    for (const [mask, n] of this.perMask) keyed[FIELDS.filter((_, i) => mask & (1 << i)).join("+")] = n;
    return { subscribers: this.entries.size, keyed, impact: this.impact.length, all: this.all.size };
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
