/**
 * Finance sentiment without a model: the lexicon in sentiment-lexicon.ts, read with rules a
 * bag of words misses. A direction word takes its polarity from the metric next to it
 * (sales rose: bullish; costs rose: bearish; share capital rose: nothing), and that metric
 * is not counted again on its own. A negator flips the next few words. A figure compared
 * with an earlier one ("EUR 9.4 mn, compared with EUR 8.5 mn") counts as a direction when
 * no direction word says it. Deterministic and fast (one pass over the tokens); accuracy on
 * Financial PhraseBank is measured by sentiment.accuracy.test.ts and recorded in docs/news.md.
 */
import type { SentimentLabel } from "../../domain/news/types.ts";
import {
  BAD_METRICS,
  DOWN,
  GOOD_METRICS,
  HEDGES,
  NEGATORS,
  NEUTRAL_METRICS,
  PHRASES,
  POLAR,
  UP,
} from "./sentiment-lexicon.ts";
import { words } from "./tokens.ts";

export interface Sentiment {
  label: SentimentLabel;
  /** -1 (bearish) .. 1 (bullish). */
  score: number;
}

/** How far (in words) a direction word looks for the metric that moved. */
const METRIC_BEFORE = 12;
const METRIC_AFTER = 3;
/** How many following words a negator flips. */
const NEGATION_SPAN = 3;
/** Weight of a direction word whose metric is unknown ("up 5%"). */
const BARE_DIRECTION = 0.5;
/** Weight of evidence inside a plan or forecast. */
const HEDGE_FACTOR = 0.75;
/** |raw evidence| at or above which a text is bullish or bearish rather than neutral. */
export const LABEL_THRESHOLD = 0.75;

type Metric = { at: number; polarity: number };

/** The metric a direction word at i speaks of: nearest first, not past another direction word. */
function metricFor(ws: readonly string[], i: number): Metric | null {
  const polarityOf = (w: string | undefined) =>
    w === undefined ? null : GOOD_METRICS.has(w) ? 1 : BAD_METRICS.has(w) ? -1 : NEUTRAL_METRICS.has(w) ? 0 : null;
  let blockedBefore = false;
  let blockedAfter = false;
  for (let d = 1; d <= METRIC_BEFORE; d++) {
    if (!blockedBefore) {
      const w = ws[i - d];
      const p = polarityOf(w);
      if (p !== null) return { at: i - d, polarity: p };
      if (w !== undefined && (UP.has(w) || DOWN.has(w))) blockedBefore = true;
    }
    if (!blockedAfter && d <= METRIC_AFTER) {
      const w = ws[i + d];
      const p = polarityOf(w);
      if (p !== null) return { at: i + d, polarity: p };
      if (w !== undefined && (UP.has(w) || DOWN.has(w))) blockedAfter = true;
    }
  }
  return null;
}

/** Words that introduce the earlier figure of a comparison. */
const COMPARED =
  /\b(?:from|compared (?:to|with)|versus|vs\.?|as against|against)\s*(?:eur|usd|sek|\$|€)?\s*(-?\d[\d,]*(?:\.\d+)?)/g;
/** The last figure before a comparison word ("EUR 9.4 mn , up"), at most 60 characters back. */
const FIGURE_BEFORE = /(-?\d[\d,]*(?:\.\d+)?)\s*(?:mn|m|mln|million|bn|billion|%|pct|percent)?[^\d.;]{0,45}$/;

const isYear = (n: number) => Number.isInteger(n) && n >= 1900 && n <= 2100;

/** "X ... compared with Y", "X, up from Y": +1 when the figure grew, -1 when it shrank. */
function comparisonEvidence(sentence: string): number {
  let ev = 0;
  for (const m of sentence.matchAll(COMPARED)) {
    const before = Number((m[1] ?? "").replace(/,/g, ""));
    const head = sentence.slice(Math.max(0, (m.index ?? 0) - 60), m.index ?? 0);
    const now = Number((FIGURE_BEFORE.exec(head)?.[1] ?? "").replace(/,/g, ""));
    // Years ("in 2008 from 2007") compare dates, not figures.
    if (!Number.isFinite(now) || !Number.isFinite(before) || now === before || isYear(now) || isYear(before)) continue;
    ev += now > before ? 1 : -1;
  }
  return Math.sign(ev);
}

/** The sentence's own metric when a direction word has none nearby: the first one named. */
function sentenceMetric(ws: readonly string[]): number {
  for (const w of ws) {
    if (GOOD_METRICS.has(w)) return 1;
    if (BAD_METRICS.has(w)) return -1;
  }
  return 0;
}

/** Raw evidence of one sentence: positive for bullish, negative for bearish, 0 when nothing applies. */
function sentenceEvidence(sentence: string): number {
  const ws = words(sentence);
  const weights = new Array<number>(ws.length).fill(0);
  const used = new Set<number>();
  const fallback = sentenceMetric(ws);
  let directional = false;
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i] as string;
    const dir = UP.has(w) ? 1 : DOWN.has(w) ? -1 : 0;
    if (dir === 0) continue;
    const metric = metricFor(ws, i);
    if (metric) {
      weights[i] = dir * metric.polarity;
      used.add(metric.at);
      directional ||= metric.polarity !== 0;
    } else if (fallback !== 0) {
      weights[i] = dir * fallback;
      directional = true;
    } else {
      weights[i] = POLAR.get(w) ?? dir * BARE_DIRECTION;
    }
    used.add(i);
  }
  let raw = 0;
  let negatedUntil = -1;
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i] as string;
    if (NEGATORS.has(w)) {
      negatedUntil = i + NEGATION_SPAN;
      continue;
    }
    const v = used.has(i) ? (weights[i] ?? 0) : (POLAR.get(w) ?? 0);
    raw += i <= negatedUntil ? -v : v;
  }
  if (!directional) raw += comparisonEvidence(sentence) * (fallback === 0 ? 1 : fallback);
  if (ws.some((w) => HEDGES.has(w))) raw *= HEDGE_FACTOR;
  return raw;
}

/** Raw evidence of a text: the sum over its sentences. */
export function rawSentiment(text: string): number {
  let norm = text.toLowerCase();
  for (const [re, to] of PHRASES) norm = norm.replace(re, to);
  // PhraseBank-style tokenised figures ("EUR7 .4 m") are read as one number.
  norm = norm.replace(/(\d) \.(\d)/g, "$1.$2");
  let raw = 0;
  for (const sentence of norm.split(/(?<=[.!?])\s+(?=[a-z"'(])|\n+/)) raw += sentenceEvidence(sentence);
  return raw;
}

export function sentimentOf(text: string): Sentiment {
  const raw = rawSentiment(text);
  const label: SentimentLabel = raw >= LABEL_THRESHOLD ? "bullish" : raw <= -LABEL_THRESHOLD ? "bearish" : "neutral";
  return { label, score: Math.round(Math.tanh(raw / 2) * 10_000) / 10_000 };
}
