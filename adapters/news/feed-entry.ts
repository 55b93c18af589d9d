/**
 * The common shape of a syndication entry (RSS 2.0, RSS 1.0, Atom, JSON item lists, JSON
 * Feed) and its conversion to a RawNewsItem, so each format's parser only maps fields.
 */
import type { RawNewsItem } from "../../domain/news/ports.ts";
import { collapse, htmlToText, toIsoOffset } from "../../domain/news/text.ts";

export interface FeedEntry {
  title: string;
  /** The article link; feedburner-style redirect links are replaced by origLink when present. */
  link: string;
  /** The item's own link when `link` came from origLink (see uniqueLinks). */
  altLink: string;
  /** The item's guid (any string), used only when links collide. */
  guid: string;
  /** Set by uniqueLinks when even altLink collides: the guid must tell items apart. */
  needsGuid?: boolean;
  /** Summary or description, HTML allowed. */
  description: string;
  /** Full content (content:encoded, Atom content), HTML allowed. */
  content: string;
  /** Publication date as the feed wrote it. */
  published: string;
  categories: string[];
  /** Tickers the publisher tagged (Nasdaq's `tickers` element). */
  tickers: string[];
}

/** Publication names for hosts whose feed titles are unhelpful ("Latest Filings - Fri, ..."). */
const KNOWN_HOSTS: [suffix: string, name: string][] = [
  ["sec.gov", "SEC EDGAR"],
  ["cnbc.com", "CNBC"],
  ["nasdaq.com", "Nasdaq"],
  ["wsj.com", "The Wall Street Journal"],
  ["marketwatch.com", "MarketWatch"],
  ["seekingalpha.com", "Seeking Alpha"],
  ["finance.yahoo.com", "Yahoo Finance"],
  ["money.cnn.com", "CNN Business"],
  ["cnn.com", "CNN"],
  ["spglobal.com", "S&P Global"],
  ["reuters.com", "Reuters"],
  ["bloomberg.com", "Bloomberg"],
  ["ft.com", "Financial Times"],
  ["reddit.com", "Reddit"],
  ["x.com", "X"],
  ["twitter.com", "X"],
];

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

/** The publication's name: known host, else the feed's own title, else the host. */
export function sourceNameFor(url: string, feedTitle: string | undefined): string {
  const host = hostOf(url);
  const known = KNOWN_HOSTS.find(([suffix]) => host === suffix || host.endsWith(`.${suffix}`));
  if (known) return known[1];
  const title = collapse(feedTitle ?? "");
  return title || host || "unknown";
}

/**
 * Some feeds point several items at one page (MarketWatch's real-time headlines all link
 * the same quote page through origLink); those items fall back to their own per-item link
 * so distinct headlines are not taken for one article.
 */
export function uniqueLinks(entries: FeedEntry[]): FeedEntry[] {
  const counts = (list: FeedEntry[]) => {
    const m = new Map<string, number>();
    for (const e of list) m.set(e.link, (m.get(e.link) ?? 0) + 1);
    return m;
  };
  const first = counts(entries);
  const relinked = entries.map((e) => ((first.get(e.link) ?? 0) > 1 && e.altLink ? { ...e, link: e.altLink } : e));
  // When the items' own links collide too (MarketWatch again), their guids tell them apart.
  const second = counts(relinked);
  return relinked.map((e) => ((second.get(e.link) ?? 0) > 1 && e.guid ? { ...e, needsGuid: true } : e));
}

/** SEC EDGAR filing entries name filers as "Company Name (0001673743) (Issuer)". */
const CIK_IN_TITLE = /\((\d{10})\)/g;

export function entryToRaw(e: FeedEntry, feedTitle: string | undefined, feedUrl: string): RawNewsItem | null {
  const link = absolutise(e.link, feedUrl);
  const title = htmlToText(e.title);
  if (!link || !title) return null;
  const desc = htmlToText(e.description);
  const content = htmlToText(e.content);
  const body = content.length > desc.length ? content : desc;
  const ciks = [...title.matchAll(CIK_IN_TITLE)].map((m) => Number(m[1]));
  return {
    source_type: "rss",
    source_name: sourceNameFor(link, feedTitle),
    url: link,
    ...(e.needsGuid ? { guid: e.guid } : {}),
    title,
    body,
    published_at: toIsoOffset(e.published),
    hints: {
      ...(e.tickers.length ? { tickers: e.tickers } : {}),
      ...(e.categories.length ? { categories: e.categories } : {}),
      ...(ciks.length ? { ciks } : {}),
    },
  };
}

/** Resolves a relative link against the feed URL; null unless the result is http(s). */
export function absolutise(link: string, base: string): string | null {
  const raw = link.trim();
  if (!raw) return null;
  try {
    const u = new URL(raw, base || undefined);
    return u.protocol === "http:" || u.protocol === "https:" ? u.toString() : null;
  } catch {
    return null;
  }
}

/** "HD,AAPL, DIS" or ["HD", "AAPL"] → unique upper-case tickers. */
export function splitTickers(v: unknown): string[] {
  const parts = Array.isArray(v) ? v.map(String) : typeof v === "string" ? v.split(/[,;\s]+/) : [];
  const out = new Set<string>();
  for (const p of parts) {
    const t = p.trim().toUpperCase();
    if (/^[A-Z][A-Z0-9.-]{0,9}$/.test(t)) out.add(t);
  }
  return [...out];
}

/** Category values of a feed ("Earnings,Stocks,Companies"; "None" means absent). */
export function splitCategories(v: unknown): string[] {
  const parts = Array.isArray(v) ? v.map(String) : typeof v === "string" ? v.split(",") : [];
  return parts.map((p) => collapse(p)).filter((p) => p && p.toLowerCase() !== "none");
}
