/**
 * Ports of news (spec 1.2, 4.4, 4.5, 6.1): what a source adapter hands over
 * (RawNewsItem), where enriched articles live (NewsStore, read by GET /v1/news and the
 * stream), where the poller keeps per-feed HTTP state (FeedStateStore), who fans new
 * articles out to live subscribers (NewsPublisher, the news hub) and who turns an
 * authenticated request into a stream socket (NewsStreamGate, sockets/news). Articles are
 * installation-wide, not tenant data: every tenant reads the same news.
 */
import type { Article, NewsFilter, SourceType } from "./types.ts";

/** One item as a source adapter parsed it, before dedup and enrichment. */
export interface RawNewsItem {
  source_type: SourceType;
  source_name: string;
  /** Absolute http(s) URL of the article (or post). */
  url: string;
  /**
   * The publisher's item id, set only when a feed points several items at one URL (a
   * quote page): it then joins the URL in the dedup key, so distinct headlines survive.
   */
  guid?: string;
  title: string;
  /** Plain text (HTML stripped), possibly empty. */
  body: string;
  /** ISO 8601 instant; null when the source gave none (ingest then uses the fetch time). */
  published_at: string | null;
  /** Facts the source states outright; enrichment merges them with what it infers. */
  hints?: RawNewsHints;
}

export interface RawNewsHints {
  /** Tickers the publisher tagged (Nasdaq `tickers`, tweet cashtag entities). */
  tickers?: string[];
  /** The publisher's own category words ("Earnings", "8-K"); mapped, not copied. */
  categories?: string[];
  /** SEC filer CIKs the entry names (EDGAR filing feeds), linked through the ticker map. */
  ciks?: number[];
  /** ISO-2 codes the source located the story in (GDELT GKG locations). */
  countries?: string[];
  /** GDELT average document tone, roughly -10 (negative) .. +10 (positive). */
  tone?: number;
  /** Audience reaction (score + comments, likes + reposts); raises impact on social sources. */
  engagement?: number;
}

/** An article with the keys dedup uses; the store keeps both. */
export interface StoredArticle extends Article {
  canonical_url: string;
}

/** History query: the stream's filter fields plus a published_at range and a page. */
export interface NewsQuery extends NewsFilter {
  /** Inclusive lower bound on published_at (ISO instant). */
  from?: string;
  /** Exclusive upper bound on published_at (ISO instant). */
  to?: string;
  /** Resume after this position in ingest order (from the previous page). */
  after?: number;
  limit: number;
}

export interface NewsPage {
  /** Newest ingested first. */
  articles: Article[];
  /** Ingest position of the last article when more may follow; null on the last page. */
  next: number | null;
}

export interface NewsStore {
  /** Stores the article unless one with the same canonical URL exists; true when stored. */
  insert(article: StoredArticle): Promise<boolean>;
  get(articleId: string): Promise<Article | null>;
  list(query: NewsQuery): Promise<NewsPage>;
  /** The newest-ingested titles, so near-duplicate detection survives a restart. */
  recentTitles(limit: number): Promise<{ article_id: string; title: string; published_at: string }[]>;
}

/** Publishes enriched articles to live subscribers (the news hub; Redis fan-out across instances). */
export interface NewsPublisher {
  publish(article: Article): Promise<void>;
}

/** Who opens a news stream: settled before the upgrade (API key, active tenant, rate limit). */
export interface NewsStreamClient {
  tenant_id: string;
  user_id: number;
  request_id: string;
}

/**
 * Switches an authenticated request over to a news stream socket (sockets/news provides
 * it; composition hands it to the service, so HTTP never imports the socket layer).
 */
export interface NewsStreamGate {
  /**
   * `server` is what Bun passed to fetch. False when there is none (in-process requests)
   * or the request is not a valid WebSocket handshake.
   */
  upgrade(server: unknown, request: Request, who: NewsStreamClient): boolean;
}

/** Conditional-GET validators and backoff of one polled feed. */
export interface FeedState {
  feed_key: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  /** Consecutive failed polls; 0 after a success or a 304. */
  failures: number;
  /** ISO instant before which nobody polls the feed. */
  next_poll_at: string;
  last_status: number | null;
  last_error: string | null;
  last_polled_at: string | null;
}

export type FeedOutcome = Pick<
  FeedState,
  "etag" | "last_modified" | "failures" | "next_poll_at" | "last_status" | "last_error" | "last_polled_at"
>;

export type FeedClaim = { claimed: true; state: FeedState } | { claimed: false; retryAt: string };

export interface FeedStateStore {
  /**
   * Takes the feed for one poll when it is due and no other poller holds it (a lease, so
   * several instances never poll the same feed at once); otherwise says when to ask again.
   */
  claim(feedKey: string, url: string, now: Date, leaseMs: number): Promise<FeedClaim>;
  /** Records the outcome of a claimed poll and releases the lease. */
  release(feedKey: string, outcome: FeedOutcome): Promise<void>;
  get(feedKey: string): Promise<FeedState | null>;
}

/** A configured source: CAIRN_NEWS_FEEDS entries are `type:url`. */
export interface FeedSpec {
  type: SourceType;
  url: string;
}

export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedRead =
  | ({ kind: "not_modified" } & FeedValidators)
  | ({ kind: "items"; items: RawNewsItem[] } & FeedValidators);

/** Fetches and parses one feed, sending the validators of the previous read (conditional GET). */
export interface FeedReader {
  read(feed: FeedSpec, prev: FeedValidators): Promise<FeedRead>;
}

/** Why a read failed, in the terms the poller's backoff needs. */
export class FeedReadError extends Error {
  override readonly name: string = "FeedReadError";
  constructor(
    message: string,
    /** HTTP status, or null for network errors, timeouts and unparsable bodies. */
    readonly status: number | null,
    /** 5xx, 429, timeouts and network errors: the same request may succeed later. */
    readonly retryable: boolean,
    /** From Retry-After, when the server sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}
