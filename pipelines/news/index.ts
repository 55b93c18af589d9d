/** News ingest and enrichment: dedup, company linking, categories, countries, sentiment, impact, poller. */
export { CATEGORIES, type Category, categorize } from "./categories.ts";
export { CompanyLinker, type CompanyLinks, createCompanyLinker, loadAmbiguousNames, nameAliases } from "./companies.ts";
export { countriesIn } from "./countries.ts";
export { canonicalUrl, DEFAULT_TITLE_INDEX, TitleIndex, type TitleIndexOptions, titleWords } from "./dedup.ts";
export { enrich, leadSentences } from "./enrich.ts";
export { articleId, uuidV5 } from "./ids.ts";
export { HIGH_IMPACT, IMPACT_LABELS, type ImpactLabel, impactOf, MEDIUM_IMPACT } from "./impact.ts";
export { type IngestStats, NewsIngestor, type NewsIngestorDeps } from "./ingest.ts";
export {
  backoffMs,
  DEFAULT_POLLER,
  feedKey,
  NewsPoller,
  type PollerDeps,
  type PollerOptions,
  type PollResult,
} from "./poller.ts";
export { LABEL_THRESHOLD, rawSentiment, type Sentiment, sentimentOf } from "./sentiment.ts";
export { type Company, TickerMap } from "./ticker-map.ts";
