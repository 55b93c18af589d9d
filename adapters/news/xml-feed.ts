/**
 * RSS 2.0, RSS 1.0 (RDF) and Atom documents to FeedEntry lists. Namespace prefixes are
 * dropped (content:encoded → encoded, feedburner:origLink → origLink), so the field
 * lookups below work whatever prefix a publisher chose.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { FeedReadError } from "../../domain/news/ports.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { splitCategories, splitTickers } from "./feed-entry.ts";

type Node = Record<string, unknown>;

const ALWAYS_ARRAY = new Set(["item", "entry", "category", "link"]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  textNodeName: "#text",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Entities are decoded by htmlToText later; here only XML's own five are expanded.
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => ALWAYS_ARRAY.has(name),
});

export interface ParsedFeed {
  title: string | undefined;
  entries: FeedEntry[];
}

/** An unparsable body: not retryable (the same bytes fail again), but the feed may change. */
export class FeedParseError extends FeedReadError {
  override readonly name = "FeedParseError";
  constructor(message: string) {
    super(message, null, false);
  }
}

/** Text of an element that may be a string, {#text, @_type}, or an array of either. */
function text(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string" || typeof v === "number") return String(v);
  if (Array.isArray(v)) return text(v[0]);
  if (typeof v === "object") return text((v as Node)["#text"]);
  return "";
}

function asNode(v: unknown): Node | undefined {
  if (Array.isArray(v)) return asNode(v[0]);
  return v !== null && typeof v === "object" ? (v as Node) : undefined;
}

function asArray(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

function rssItem(item: Node): FeedEntry {
  // A <link> may repeat (atom:link inside RSS); the plain text one is the article.
  const links = asArray(item.link).map(text).filter(Boolean);
  const orig = text(item.origLink);
  const guid = asNode(item.guid);
  const guidIsLink = guid
    ? guid["@_isPermaLink"] !== "false" && /^https?:/.test(text(guid))
    : /^https?:/.test(text(item.guid));
  return {
    title: text(item.title),
    link: orig || links[0] || (guidIsLink ? text(item.guid) : ""),
    altLink: orig ? (links[0] ?? "") : "",
    guid: text(item.guid),
    description: text(item.description),
    content: text(item.encoded),
    published: text(item.pubDate) || text(item.date) || text(item.published) || text(item.updated),
    categories: splitCategories(asArray(item.category).map(text)),
    tickers: splitTickers(text(item.tickers)),
  };
}

function atomLink(links: unknown[]): string {
  const nodes = links.map(asNode).filter((n): n is Node => n !== undefined);
  const alt = nodes.find((n) => (n["@_rel"] ?? "alternate") === "alternate") ?? nodes[0];
  return alt ? String(alt["@_href"] ?? text(alt)) : "";
}

function atomEntry(entry: Node): FeedEntry {
  return {
    title: text(entry.title),
    link: text(entry.origLink) || atomLink(asArray(entry.link)),
    altLink: text(entry.origLink) ? atomLink(asArray(entry.link)) : "",
    guid: text(entry.id),
    description: text(entry.summary),
    content: text(entry.content),
    published: text(entry.published) || text(entry.updated),
    categories: asArray(entry.category)
      .map((c) => {
        const n = asNode(c);
        return n ? String(n["@_term"] ?? n["@_label"] ?? "") : text(c);
      })
      .filter(Boolean),
    tickers: [],
  };
}

/** Parses an RSS or Atom document; throws FeedParseError when it is neither. */
export function parseXmlFeed(xml: string): ParsedFeed {
  // The parser is lenient with unclosed tags; a truncated body must not pass as an empty feed.
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new FeedParseError(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw new FeedParseError(`not well-formed XML: ${(err as Error).message}`);
  }
  const rss = asNode(doc.rss);
  if (rss) {
    const channel = asNode(rss.channel) ?? {};
    return { title: text(channel.title) || undefined, entries: asArray(channel.item).map((i) => rssItem(i as Node)) };
  }
  const rdf = asNode(doc.RDF);
  if (rdf) {
    const channel = asNode(rdf.channel) ?? {};
    return { title: text(channel.title) || undefined, entries: asArray(rdf.item).map((i) => rssItem(i as Node)) };
  }
  const feed = asNode(doc.feed);
  if (feed) {
    return { title: text(feed.title) || undefined, entries: asArray(feed.entry).map((e) => atomEntry(e as Node)) };
  }
  throw new FeedParseError("XML is neither RSS (<rss>, <rdf:RDF>) nor Atom (<feed>)");
}
