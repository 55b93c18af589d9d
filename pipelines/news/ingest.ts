/**
 * The ingest step every source goes through: canonical URL, near-duplicate headline check,
 * enrichment, store, publish. Only an article the store newly accepted is published, so
 * however many pollers or CLI runs see the same story, the stream carries it once.
 */
import type { Logger } from "pino";
import type { NewsPublisher, NewsStore, RawNewsItem } from "../../domain/news/ports.ts";
import type { CompanyLinker } from "./companies.ts";
import { canonicalUrl, DEFAULT_TITLE_INDEX, TitleIndex, type TitleIndexOptions } from "./dedup.ts";
import { enrich } from "./enrich.ts";

export interface IngestStats {
  received: number;
  stored: number;
  /** Same canonical URL as a stored article (or an earlier item of the batch). */
  duplicate_url: number;
  /** A near-identical headline was stored within the dedup window. */
  duplicate_title: number;
  /** No usable URL or title. */
  invalid: number;
  publish_failed: number;
}

export interface NewsIngestorDeps {
  store: NewsStore;
  publisher: NewsPublisher;
  linker: CompanyLinker;
  logger: Logger;
  now?: () => Date;
  titleIndex?: TitleIndexOptions;
}

const emptyStats = (): IngestStats => ({
  received: 0,
  stored: 0,
  duplicate_url: 0,
  duplicate_title: 0,
  invalid: 0,
  publish_failed: 0,
});

export class NewsIngestor {
  private readonly titles: TitleIndex;
  private readonly now: () => Date;
  private warmed: Promise<void> | null = null;

  constructor(private readonly deps: NewsIngestorDeps) {
    this.titles = new TitleIndex(deps.titleIndex ?? DEFAULT_TITLE_INDEX);
    this.now = deps.now ?? (() => new Date());
  }

  /** Loads recent headlines from the store once, so a restart does not forget what it saw. */
  warm(): Promise<void> {
    this.warmed ??= (async () => {
      const cap = (this.deps.titleIndex ?? DEFAULT_TITLE_INDEX).capacity;
      const recent = await this.deps.store.recentTitles(cap);
      // Oldest first, so the index evicts in the same order it would have live.
      for (const r of recent.reverse()) this.titles.add(r.article_id, r.title, Date.parse(r.published_at));
    })();
    return this.warmed;
  }

  async ingest(items: readonly RawNewsItem[]): Promise<IngestStats> {
    await this.warm();
    const stats = emptyStats();
    stats.received = items.length;
    const seen = new Set<string>();
    // Oldest first: ingest order then follows publication order within a batch.
    const ordered = [...items].sort((a, b) => (a.published_at ?? "").localeCompare(b.published_at ?? ""));
    for (const item of ordered) {
      const url = canonicalUrl(item.url);
      const canonical = url && item.guid ? `${url}#${item.guid}` : url;
      if (!canonical || !item.title.trim()) {
        stats.invalid++;
        continue;
      }
      if (seen.has(canonical)) {
        stats.duplicate_url++;
        continue;
      }
      seen.add(canonical);
      const article = enrich(item, canonical, this.now(), this.deps.linker);
      const publishedMs = Date.parse(article.published_at);
      // A filing is identified by its accession number (in the URL), not its headline:
      // one issuer's Form 4s all read "4 - CARVANA CO. (0001690820) (Issuer)".
      const twin = item.hints?.ciks?.length ? null : this.titles.findDuplicate(article.title, publishedMs);
      if (twin && twin !== article.article_id) {
        stats.duplicate_title++;
        continue;
      }
      // Reserve the headline before the await, so a concurrent poll of another feed
      // carrying the same story sees it; released again if the store refuses.
      this.titles.add(article.article_id, article.title, publishedMs);
      let stored: boolean;
      try {
        stored = await this.deps.store.insert(article);
      } catch (err) {
        this.titles.remove(article.article_id);
        throw err;
      }
      if (!stored) {
        stats.duplicate_url++;
        continue;
      }
      stats.stored++;
      const { canonical_url: _, ...published } = article;
      try {
        await this.deps.publisher.publish(published);
      } catch (err) {
        // Stored is what counts: history has it; only live subscribers miss it.
        stats.publish_failed++;
        this.deps.logger.warn({ err, article_id: article.article_id }, "news publish failed");
      }
    }
    return stats;
  }
}
