/** News wiring of the composition root: the feed poller, when feeds are configured. */
import type { Logger } from "pino";
import type { NewsHub } from "../actors/index.ts";
import { HttpFeedReader, SqlFeedStateStore, type SqlNewsStore } from "../adapters/news/index.ts";
import type { Config } from "../config.ts";
import type { ControlPlaneStore } from "../domain/ports.ts";
import { createCompanyLinker, DEFAULT_POLLER, NewsIngestor, NewsPoller } from "../pipelines/news/index.ts";

/** The poller runs only when feeds are configured: it loads the ticker map (~100 ms). */
export function openNewsPoller(
  config: Config,
  store: ControlPlaneStore,
  news: SqlNewsStore,
  newsHub: NewsHub,
  logger: Logger,
): NewsPoller | null {
  return config.news.feeds.length > 0
    ? new NewsPoller(
        config.news.feeds,
        {
          reader: new HttpFeedReader({
            timeoutMs: 20_000,
            maxBytes: 20 * 1024 * 1024,
            xBearerToken: config.news.xBearerToken,
          }),
          state: new SqlFeedStateStore(store.sql),
          ingestor: new NewsIngestor({
            store: news,
            publisher: newsHub,
            linker: createCompanyLinker(config.news.tickerMap),
            logger,
          }),
          logger,
        },
        { ...DEFAULT_POLLER, intervalMs: config.news.pollMs, concurrency: config.news.concurrency },
      )
    : null;
}
