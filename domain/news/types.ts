/**
 * News articles and stream filters (spec 2.11, 6.1). Array-valued fields travel as
 * JSON-encoded strings and decimals as strings, exactly as the spec's stream object says.
 */

export const SOURCE_TYPES = ["rss", "gdelt", "reddit", "twitter"] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export const SENTIMENT_LABELS = ["bullish", "bearish", "neutral"] as const;
export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];

/** The stream's article data object (spec 2.11): every value a string. */
export interface ArticleWire {
  article_id: string;
  url: string;
  title: string;
  snippet: string;
  summary: string;
  source_name: string;
  source_type: SourceType;
  /** ISO 8601 with UTC offset. */
  published_at: string;
  /** JSON-encoded string[] */
  categories: string;
  /** JSON-encoded ISO-2 codes */
  country_codes: string;
  /** JSON-encoded string[] */
  company_tickers: string;
  /** JSON-encoded string[] */
  company_names: string;
  sentiment_label: SentimentLabel;
  /** decimal as string, -1..1 */
  sentiment_score: string;
  /** decimal as string, 0..1 */
  impact_score: string;
  /** low, medium, high */
  impact_label: string;
}

/** The same article with typed fields, as pipelines and matching use it. */
export interface Article {
  article_id: string;
  url: string;
  title: string;
  snippet: string;
  summary: string;
  source_name: string;
  source_type: SourceType;
  published_at: string;
  categories: string[];
  country_codes: string[];
  company_tickers: string[];
  company_names: string[];
  sentiment_label: SentimentLabel;
  sentiment_score: number;
  impact_score: number;
  impact_label: string;
  /** When Cairn ingested it (ISO 8601); history pages by this. */
  ingested_at: string;
}

/** Client filter message (spec 6.1); every field optional. */
export interface NewsFilter {
  tickers?: string[];
  categories?: string[];
  countries?: string[];
  sentiment?: SentimentLabel;
  min_impact?: number;
  source_types?: SourceType[];
}

const dec = (n: number) => (Math.round(n * 10_000) / 10_000).toString();

export function toWire(a: Article): ArticleWire {
  return {
    article_id: a.article_id,
    url: a.url,
    title: a.title,
    snippet: a.snippet,
    summary: a.summary,
    source_name: a.source_name,
    source_type: a.source_type,
    published_at: a.published_at,
    categories: JSON.stringify(a.categories),
    country_codes: JSON.stringify(a.country_codes),
    company_tickers: JSON.stringify(a.company_tickers),
    company_names: JSON.stringify(a.company_names),
    sentiment_label: a.sentiment_label,
    sentiment_score: dec(a.sentiment_score),
    impact_score: dec(a.impact_score),
    impact_label: a.impact_label,
  };
}

/** OR within a field, AND across fields; an empty or absent field matches everything. */
export function matches(f: NewsFilter, a: Article): boolean {
  const any = (want: readonly string[] | undefined, have: readonly string[]) =>
    !want || want.length === 0 || want.some((w) => have.includes(w));
  return (
    any(f.tickers, a.company_tickers) &&
    any(f.categories, a.categories) &&
    any(f.countries, a.country_codes) &&
    any(f.source_types, [a.source_type]) &&
    (f.sentiment === undefined || f.sentiment === a.sentiment_label) &&
    (f.min_impact === undefined || a.impact_score >= f.min_impact)
  );
}
