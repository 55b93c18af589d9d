/** `ingest-news`: news samples from a folder (RSS/Atom, feed JSON, GDELT, Reddit, X) into history. */
import { resolve } from "node:path";
import { openNewsStore, readLocalFeeds } from "../composition/cli.ts";
import { createLogger } from "../http/logger.ts";
import { createCompanyLinker, type IngestStats, NewsIngestor } from "../pipelines/news/index.ts";
import type { Command } from "./context.ts";
import { fail, printJson } from "./context.ts";

export const ingestNews: Command = async ({ flags, config, store }) => {
  if (!flags.dir) fail("ingest-news needs --dir");
  const ingestor = new NewsIngestor({
    store: openNewsStore(store.sql),
    // A separate process: the service's stream has no subscribers here; history gets the articles.
    publisher: { publish: async () => {} },
    linker: createCompanyLinker(config.news.tickerMap),
    logger: createLogger(config.logLevel),
  });
  const files: { file: string; type: string | null; error?: string; stats?: IngestStats }[] = [];
  for (const f of readLocalFeeds(resolve(flags.dir))) {
    files.push({
      file: f.file,
      type: f.type,
      error: f.error,
      stats: f.type ? await ingestor.ingest(f.items) : undefined,
    });
  }
  const stored = files.reduce((n, f) => n + (f.stats?.stored ?? 0), 0);
  printJson({ stored, files });
  if (files.some((f) => f.error)) process.exitCode = 1;
};
