/** News sources (parsers, conditional fetch) and the SQL stores of articles and feed state. */
export { parseDelimited } from "./csv.ts";
export { SqlFeedStateStore } from "./feed-state.ts";
export {
  conditionalGet,
  DEFAULT_USER_AGENT,
  FeedFetchError,
  type FetchOptions,
  type FetchResult,
  parseRetryAfter,
  type Validators,
} from "./fetcher.ts";
export { titleFromUrl } from "./gdelt.ts";
export { type LocalFeedFile, readLocalFeeds } from "./local-files.ts";
export { NEWS_MIGRATIONS } from "./migrations.ts";
export { type ParseContext, parseSource, sniffSource } from "./parse.ts";
export { HttpFeedReader, type HttpFeedReaderOptions } from "./reader.ts";
export { SqlNewsStore } from "./store.ts";
export { FeedParseError } from "./xml-feed.ts";
