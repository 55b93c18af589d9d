/**
 * One entry point from a fetched body to RawNewsItems. A configured feed names its source
 * type (rss, gdelt, reddit, twitter); within a type the concrete format (RSS or Atom XML,
 * JSON item list, GKG or Mentions rows, listing JSON or CSV export) is told from the body,
 * because publishers switch formats behind the same URL. `sniffSource` also guesses the
 * type, for local sample directories.
 */

import type { RawNewsItem } from "../../domain/news/ports.ts";
import type { SourceType } from "../../domain/news/types.ts";
import { entryToRaw, uniqueLinks } from "./feed-entry.ts";
import { isJsonFeed, parseJsonFeed } from "./feed-json.ts";
import { looksLikeGdeltRows, parseGdeltDoc, parseGdeltRows } from "./gdelt.ts";
import { isRedditListing, looksLikeRedditCsv, parseRedditCsv, parseRedditListing } from "./reddit.ts";
import { isTwitterDoc, parseTwitter } from "./twitter.ts";
import { FeedParseError, type ParsedFeed, parseXmlFeed } from "./xml-feed.ts";

export interface ParseContext {
  /** The URL the body came from: resolves relative links, names unknown sources. */
  url: string;
  /** Subreddit for Reddit CSV exports, whose rows do not name it. */
  subreddit?: string;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new FeedParseError(`not valid JSON: ${(err as Error).message}`);
  }
}

const isJsonText = (t: string) => t.startsWith("{") || t.startsWith("[");

function feedItems(feed: ParsedFeed, url: string): RawNewsItem[] {
  return uniqueLinks(feed.entries)
    .map((e) => entryToRaw(e, feed.title, url))
    .filter((i): i is RawNewsItem => i !== null);
}

/** Parses a body of the given source type; throws FeedParseError when it is not one of its formats. */
export function parseSource(type: SourceType, body: string, ctx: ParseContext): RawNewsItem[] {
  const text = body.trimStart();
  switch (type) {
    case "rss":
      return feedItems(isJsonText(text) ? parseJsonFeed(parseJson(text)) : parseXmlFeed(text), ctx.url);
    case "gdelt":
      return isJsonText(text) ? parseGdeltDoc(parseJson(text)) : parseGdeltRows(text);
    case "reddit":
      return isJsonText(text)
        ? parseRedditListing(parseJson(text), ctx.subreddit)
        : parseRedditCsv(text, ctx.subreddit);
    case "twitter":
      return parseTwitter(parseJson(text));
  }
}

/** Guesses the source type of a body (sample files); null when no parser recognises it. */
export function sniffSource(body: string): SourceType | null {
  const text = body.trimStart();
  if (text.startsWith("<")) return /<(rss|feed|rdf:RDF)\b/.test(text.slice(0, 4000)) ? "rss" : null;
  if (isJsonText(text)) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return null;
    }
    if (isRedditListing(doc) || (Array.isArray(doc) && isRedditListing(doc[0]))) return "reddit";
    if (isTwitterDoc(doc)) return "twitter";
    if (typeof doc === "object" && doc !== null && Array.isArray((doc as { articles?: unknown }).articles))
      return "gdelt";
    if (isJsonFeed(doc)) return "rss";
    return null;
  }
  if (looksLikeGdeltRows(text)) return "gdelt";
  if (looksLikeRedditCsv(text)) return "reddit";
  return null;
}
