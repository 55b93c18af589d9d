/**
 * Duplicate detection. The same story reaches Cairn through several feeds, with tracking
 * parameters, http and https, "www." or not; and wire stories are re-published under
 * slightly different headlines ("... - Reuters"). The canonical URL catches the first kind
 * exactly (unique in the store); the title index catches the second by word overlap.
 */
import { tokenize } from "./tokens.ts";

/** Query parameters that only track the reader, never select the article. */
const TRACKING =
  /^(utm_.*|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|ref|ref_src|cmpid|ncid|taid|yptr|\.tsrc|tsrc|guccounter|guce_referrer|guce_referrer_sig|soc_src|soc_trk|feedtype|feedname|mod|outputtype|sr_share|smid)$/i;

/**
 * The URL as a dedup key: scheme, "www.", fragment, default port, tracking parameters, a
 * trailing slash and an /amp suffix removed; host lower-cased; remaining parameters sorted.
 * Returns null for anything that is not an absolute http(s) URL.
 */
export function canonicalUrl(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const host = u.hostname.toLowerCase().replace(/^(www|m|amp)\./, "");
  const params = [...u.searchParams.entries()]
    .filter(([k]) => !TRACKING.test(k))
    .sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : "";
  let path = u.pathname.replace(/\/amp\/?$/i, "/").replace(/\/{2,}/g, "/");
  if (path.length > 1) path = path.replace(/\/$/, "");
  return `${host}${path === "/" ? "" : path}${query}`;
}

/** Words that carry no identity in a headline. */
const STOP = new Set(
  "a an the and or of to in on at for with by from as is are was were be its it this that after over into up down amid vs".split(
    " ",
  ),
);

/** A trailing " - Reuters" or " | CNBC": a publisher's name, not part of the story. */
const SOURCE_SUFFIX = /\s+[-–—|]\s+([^-–—|]{2,40})$/;

/** Headline words for comparison: lower case, stop words and a trailing " - Publisher" dropped. */
export function titleWords(title: string): string[] {
  const suffix = SOURCE_SUFFIX.exec(title);
  // Only a short tail after a longer head is a publisher ("4 - Hinge Health, Inc. (Issuer)" is not).
  const head = suffix ? title.slice(0, suffix.index) : title;
  const strip = suffix !== null && tokenize(suffix[1] ?? "").length <= 3 && tokenize(head).length >= 4;
  const words = tokenize(strip ? head : title).map((t) => t.lower);
  return [...new Set(words.filter((w) => !STOP.has(w)))];
}

export interface TitleIndexOptions {
  /** Most titles remembered; the oldest are forgotten first. */
  capacity: number;
  /** Word-set Jaccard similarity at or above which two headlines are the same story. */
  threshold: number;
  /** Headlines further apart in publication time than this are different stories. */
  windowMs: number;
}

export const DEFAULT_TITLE_INDEX: TitleIndexOptions = {
  capacity: 20_000,
  threshold: 0.8,
  windowMs: 3 * 24 * 3600 * 1000,
};

interface Entry {
  id: string;
  words: string[];
  at: number;
}

/** Near-duplicate headlines, by an inverted word index so a lookup touches only overlapping titles. */
export class TitleIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly postings = new Map<string, Set<string>>();

  constructor(private readonly opts: TitleIndexOptions = DEFAULT_TITLE_INDEX) {}

  get size(): number {
    return this.entries.size;
  }

  /** The id of a remembered headline that is the same story, or null. */
  findDuplicate(title: string, publishedAt: number): string | null {
    const ws = titleWords(title);
    // Very short headlines ("Markets wrap") repeat daily; only an exact match counts.
    const exactOnly = ws.length < 4;
    const overlap = new Map<string, number>();
    for (const w of ws) for (const id of this.postings.get(w) ?? []) overlap.set(id, (overlap.get(id) ?? 0) + 1);
    for (const [id, inter] of overlap) {
      const e = this.entries.get(id);
      if (!e || Math.abs(e.at - publishedAt) > this.opts.windowMs) continue;
      const jaccard = inter / (ws.length + e.words.length - inter);
      if (exactOnly ? jaccard === 1 : jaccard >= this.opts.threshold) return id;
    }
    return null;
  }

  add(id: string, title: string, publishedAt: number): void {
    this.remove(id);
    const words = titleWords(title);
    if (words.length === 0) return;
    this.entries.set(id, { id, words, at: publishedAt });
    for (const w of words) {
      let set = this.postings.get(w);
      if (!set) {
        set = new Set();
        this.postings.set(w, set);
      }
      set.add(id);
    }
    // Map iteration order is insertion order, so the first key is the oldest entry.
    while (this.entries.size > this.opts.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
  }

  remove(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    for (const w of e.words) {
      const set = this.postings.get(w);
      set?.delete(id);
      if (set?.size === 0) this.postings.delete(w);
    }
  }
}
