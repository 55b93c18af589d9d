/**
 * Feeds delivered as JSON: JSON Feed 1.x ({version, items: [{url, title, content_html,
 * date_published, tags}]}) and arrays of RSS items already parsed to objects (title,
 * link, description, pubDate, category, tickers — what feed aggregators such as finnews
 * emit, and the shape of the RSS samples under shared/data/news/feed_items).
 */
import type { FeedEntry } from "./feed-entry.ts";
import { splitCategories, splitTickers } from "./feed-entry.ts";
import type { ParsedFeed } from "./xml-feed.ts";
import { FeedParseError } from "./xml-feed.ts";

type Obj = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** A namespaced key as some converters write it: "{http://rssnamespace.org/feedburner/ext/1.0}origLink". */
function field(o: Obj, local: string): string {
  if (o[local] !== undefined) return str(o[local]);
  const key = Object.keys(o).find((k) => k.endsWith(`}${local}`) || k.endsWith(`:${local}`));
  return key ? str(o[key]) : "";
}

function itemEntry(o: Obj): FeedEntry {
  return {
    title: str(o.title),
    link: field(o, "origLink") || str(o.link) || (/^https?:/.test(str(o.guid)) ? str(o.guid) : ""),
    altLink: field(o, "origLink") ? str(o.link) : "",
    guid: str(o.guid),
    description: str(o.description) || str(o.summary),
    content: field(o, "encoded"),
    published: str(o.pubDate) || str(o.published) || str(o.updated) || str(o.date),
    categories: splitCategories(o.category ?? o.categories),
    tickers: splitTickers(o.tickers),
  };
}

function jsonFeedEntry(o: Obj): FeedEntry {
  return {
    title: str(o.title),
    link: str(o.url) || str(o.external_url),
    altLink: "",
    guid: str(o.id),
    description: str(o.summary),
    content: str(o.content_html) || str(o.content_text),
    published: str(o.date_published) || str(o.date_modified),
    categories: splitCategories(o.tags),
    tickers: [],
  };
}

/** True when a parsed JSON value looks like a feed this module reads. */
export function isJsonFeed(doc: unknown): boolean {
  if (Array.isArray(doc))
    return doc.length === 0 || (typeof doc[0] === "object" && doc[0] !== null && "title" in doc[0]);
  return typeof doc === "object" && doc !== null && Array.isArray((doc as Obj).items);
}

export function parseJsonFeed(doc: unknown): ParsedFeed {
  if (Array.isArray(doc)) {
    return {
      title: undefined,
      entries: doc.filter((o): o is Obj => typeof o === "object" && o !== null).map(itemEntry),
    };
  }
  if (typeof doc === "object" && doc !== null && Array.isArray((doc as Obj).items)) {
    const feed = doc as Obj;
    const items = (feed.items as unknown[]).filter((o): o is Obj => typeof o === "object" && o !== null);
    return { title: str(feed.title) || undefined, entries: items.map(jsonFeedEntry) };
  }
  throw new FeedParseError("JSON is neither a JSON Feed nor an array of feed items");
}
