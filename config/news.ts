/** News ingest runner (pipelines/news): feeds to poll, pacing, company-linking data. */
import { resolve } from "node:path";
import { z } from "zod";
import { SOURCE_TYPES, type SourceType } from "../domain/news/types.ts";
import { optionalSecret } from "./env.ts";

/** CAIRN_NEWS_FEEDS: comma-separated `type:url` (type rss, gdelt, reddit or twitter). */
const newsFeeds = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .superRefine((entries, ctx) => {
    for (const entry of entries) {
      const at = entry.indexOf(":");
      const type = entry.slice(0, at);
      const url = entry.slice(at + 1);
      if (at < 1 || !(SOURCE_TYPES as readonly string[]).includes(type) || !/^https?:\/\/\S+$/.test(url)) {
        ctx.addIssue({
          code: "custom",
          message: `entry '${entry}' must be type:url with type one of ${SOURCE_TYPES.join(", ")} and an http(s) URL`,
        });
      }
    }
  })
  .transform((entries) =>
    entries.map((e) => ({ type: e.slice(0, e.indexOf(":")) as SourceType, url: e.slice(e.indexOf(":") + 1) })),
  );

export const newsEnv = z.object({
  /** News feeds the ingest runner polls (pipelines/news); unset = no poller. */
  CAIRN_NEWS_FEEDS: newsFeeds,
  /** Time between polls of one feed (after a failure: exponential backoff instead). */
  CAIRN_NEWS_POLL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  /** Most feeds fetched at the same time. */
  CAIRN_NEWS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** A fresher SEC company_tickers.json (or the bundled TSV format) for company linking. */
  CAIRN_NEWS_TICKER_MAP: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v)),
  /** Bearer token sent to X API v2 feeds (twitter:https://api.x.com/2/tweets/search/recent?...). */
  CAIRN_NEWS_X_BEARER_TOKEN: optionalSecret(16),
});

export type NewsEnv = z.infer<typeof newsEnv>;

export interface NewsConfig {
  /** News ingest runner: feeds to poll (empty = no poller), pacing, company-linking data. */
  readonly news: {
    feeds: { type: SourceType; url: string }[];
    pollMs: number;
    concurrency: number;
    tickerMap: string | undefined;
    xBearerToken: string | undefined;
  };
}

export function newsConfig(e: NewsEnv): NewsConfig {
  return {
    news: {
      feeds: e.CAIRN_NEWS_FEEDS,
      pollMs: e.CAIRN_NEWS_POLL_MS,
      concurrency: e.CAIRN_NEWS_CONCURRENCY,
      tickerMap: e.CAIRN_NEWS_TICKER_MAP ? resolve(e.CAIRN_NEWS_TICKER_MAP) : undefined,
      xBearerToken: e.CAIRN_NEWS_X_BEARER_TOKEN,
    },
  };
}
