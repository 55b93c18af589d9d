/**
 * How much an article may move prices, 0..1, and its label (low, medium, high). A weighted
 * sum of what makes news market-moving: the kind of event (a takeover or bankruptcy more
 * than a market wrap), how strongly positive or negative it reads, whether it is about
 * specific listed companies, and how much weight its source carries (a wire story, or a
 * social post that many people reacted to).
 */
import type { SourceType } from "../../domain/news/types.ts";
import type { Category } from "./categories.ts";

export const IMPACT_LABELS = ["low", "medium", "high"] as const;
export type ImpactLabel = (typeof IMPACT_LABELS)[number];

const CATEGORY_WEIGHT: Record<Category, number> = {
  bankruptcy: 1,
  mergers_acquisitions: 0.9,
  earnings: 0.8,
  guidance: 0.8,
  regulatory: 0.7,
  ipo: 0.7,
  macro: 0.7,
  legal: 0.6,
  management: 0.6,
  analyst_ratings: 0.5,
  dividends: 0.5,
  buybacks: 0.5,
  labor: 0.5,
  insider_trading: 0.4,
  products: 0.4,
  commodities: 0.4,
  crypto: 0.4,
  markets: 0.3,
  filings: 0.2,
};

/** Base credibility of a source type; social sources earn more with engagement. */
const SOURCE_WEIGHT: Record<SourceType, number> = { rss: 1, gdelt: 0.6, reddit: 0.3, twitter: 0.3 };

/** The terms and their shares of the score (they sum to 0.9; 0.1 is the floor). */
const W = { floor: 0.1, category: 0.35, sentiment: 0.25, companies: 0.15, source: 0.15 };

export const HIGH_IMPACT = 0.7;
export const MEDIUM_IMPACT = 0.4;

export interface ImpactInput {
  categories: readonly Category[];
  sentimentScore: number;
  companies: number;
  sourceType: SourceType;
  /** Reactions on social sources (score + comments, likes + reposts). */
  engagement?: number;
}

export function impactOf(input: ImpactInput): { score: number; label: ImpactLabel } {
  const category = Math.max(0, ...input.categories.map((c) => CATEGORY_WEIGHT[c]));
  const social = input.sourceType === "reddit" || input.sourceType === "twitter";
  // log10: 10 reactions add a quarter of the headroom, 10,000 all of it.
  const reach = social ? Math.min(1, Math.log10(1 + Math.max(0, input.engagement ?? 0)) / 4) : 0;
  const source = Math.min(1, SOURCE_WEIGHT[input.sourceType] + reach * (1 - SOURCE_WEIGHT[input.sourceType]));
  const raw =
    W.floor +
    W.category * category +
    W.sentiment * Math.min(1, Math.abs(input.sentimentScore)) +
    W.companies * Math.min(1, input.companies / 2) +
    W.source * source;
  const score = Math.round(Math.min(1, Math.max(0, raw)) * 10_000) / 10_000;
  const label: ImpactLabel = score >= HIGH_IMPACT ? "high" : score >= MEDIUM_IMPACT ? "medium" : "low";
  return { score, label };
}
