/** FeedReader over HTTP: conditional GET (fetcher.ts), then the source type's parser (parse.ts). */
import type { FeedRead, FeedReader, FeedSpec, FeedValidators } from "../../domain/news/ports.ts";
import { conditionalGet } from "./fetcher.ts";
import { parseSource } from "./parse.ts";

export interface HttpFeedReaderOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Bearer token for X API v2 feeds (CAIRN_NEWS_X_BEARER_TOKEN). */
  xBearerToken?: string;
  fetch?: typeof fetch;
}

export class HttpFeedReader implements FeedReader {
  constructor(private readonly opts: HttpFeedReaderOptions) {}

  async read(feed: FeedSpec, prev: FeedValidators): Promise<FeedRead> {
    const headers: Record<string, string> = {};
    if (feed.type === "twitter" && this.opts.xBearerToken) headers.authorization = `Bearer ${this.opts.xBearerToken}`;
    const res = await conditionalGet(feed.url, prev, {
      timeoutMs: this.opts.timeoutMs,
      maxBytes: this.opts.maxBytes,
      headers,
      fetch: this.opts.fetch,
    });
    if (res.kind === "not_modified") return { kind: "not_modified", etag: res.etag, lastModified: res.lastModified };
    return {
      kind: "items",
      items: parseSource(feed.type, res.body, { url: feed.url }),
      etag: res.etag,
      lastModified: res.lastModified,
    };
  }
}
