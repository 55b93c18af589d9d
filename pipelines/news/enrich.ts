/**
 * Enrichment: one RawNewsItem to a stored article. Each step is its own small module
 * (companies, categories, countries, sentiment, impact); this file only composes them and
 * fills the text fields. Pure and deterministic: the same item and ingest time give the
 * same article on every instance.
 */

import type { RawNewsItem, StoredArticle } from "../../domain/news/ports.ts";
import { collapse, toIsoOffset, truncate } from "../../domain/news/text.ts";
import type { Article } from "../../domain/news/types.ts";
import { categorize } from "./categories.ts";
import type { CompanyLinker } from "./companies.ts";
import { countriesIn } from "./countries.ts";
import { articleId } from "./ids.ts";
import { impactOf } from "./impact.ts";
import { LABEL_THRESHOLD, rawSentiment } from "./sentiment.ts";

/** Enrichment reads at most this much body text: long Reddit posts say their point early. */
const BODY_LIMIT = 4_000;
const SNIPPET_CHARS = 240;
const SUMMARY_CHARS = 480;

/** The first sentences of a text, up to max characters. */
export function leadSentences(text: string, max: number): string {
  const sentences = collapse(text).split(/(?<=[.!?])\s+(?=[A-Z"'“(])/);
  let out = "";
  for (const s of sentences) {
    if (out && out.length + s.length + 1 > max) break;
    out = out ? `${out} ${s}` : s;
  }
  return truncate(out, max);
}

/**
 * Sentiment of a headline and body. The headline counts double: it is the publisher's own
 * summary of the story. GDELT's document tone, when given, adds up to one unit of evidence.
 */
function sentimentFor(
  title: string,
  body: string,
  tone: number | undefined,
): { label: Article["sentiment_label"]; score: number } {
  let raw = 2 * rawSentiment(title) + (body ? rawSentiment(body) : 0);
  if (tone !== undefined && Number.isFinite(tone)) raw += Math.max(-1, Math.min(1, tone / 4));
  const label = raw >= LABEL_THRESHOLD ? "bullish" : raw <= -LABEL_THRESHOLD ? "bearish" : "neutral";
  return { label, score: Math.round(Math.tanh(raw / 2) * 10_000) / 10_000 };
}

/** A feed clock far ahead of ours would pin an article to the top of every time range. */
const MAX_FUTURE_MS = 3600_000;

/** Normalised to the stored format (UTC, "+00:00"), which history compares as text. */
function publishedOrIngested(published: string | null, ingestedAt: Date): string | null {
  const iso = toIsoOffset(published);
  if (!iso) return null;
  return Date.parse(iso) - ingestedAt.getTime() > MAX_FUTURE_MS ? null : iso;
}

export function enrich(item: RawNewsItem, canonical: string, ingestedAt: Date, linker: CompanyLinker): StoredArticle {
  const title = collapse(item.title);
  const body = collapse(item.body).slice(0, BODY_LIMIT);
  const hints = item.hints ?? {};
  const text = body ? `${title}\n${body}` : title;
  const secFiling = /(^|\.)sec\.gov$/.test(new URL(item.url).hostname);
  const categories = categorize(title, body, hints.categories ?? [], secFiling);
  const companies = linker.link(text, { tickers: hints.tickers, ciks: hints.ciks });
  const sentiment = sentimentFor(title, body, hints.tone);
  const impact = impactOf({
    categories,
    sentimentScore: sentiment.score,
    companies: companies.tickers.length,
    sourceType: item.source_type,
    engagement: hints.engagement,
  });
  const ingested = toIsoOffset(ingestedAt.getTime()) ?? ingestedAt.toISOString();
  return {
    article_id: articleId(canonical),
    canonical_url: canonical,
    url: item.url,
    title,
    snippet: truncate(body, SNIPPET_CHARS),
    summary: leadSentences(body, SUMMARY_CHARS),
    source_name: item.source_name,
    source_type: item.source_type,
    published_at: publishedOrIngested(item.published_at, ingestedAt) ?? ingested,
    categories,
    country_codes: countriesIn(title, body, hints.countries ?? []),
    company_tickers: companies.tickers,
    company_names: companies.names,
    sentiment_label: sentiment.label,
    sentiment_score: sentiment.score,
    impact_score: impact.score,
    impact_label: impact.label,
    ingested_at: ingestedAt.toISOString(),
  };
}
