/**
 * Emerging topics: topics whose share of documents rises in a recent window against the
 * baseline window before it. Windows are anchored at the latest document date of each
 * source type (transcripts and filings have different calendars and vocabularies, so
 * comparing a 2025 filing to a 2021 call would flag filing words, not trends):
 *
 *   recent   = [latest - recentDays + 1, latest]
 *   baseline = [recent start - baselineDays, recent start - 1]
 *
 * share = documents mentioning the topic / documents in the window, smoothed
 * ((k + 0.5) / (n + 1)) so an absent baseline does not divide by zero; lift = recent
 * share / baseline share. A topic emerges when its lift, recent document count and
 * number of recent companies all reach their thresholds. Only multi-word topics qualify.
 */
import type {
  EmergingTopicInput,
  TopicDocument,
  TopicMention,
  TopicSourceType,
} from "../../../domain/financials/topics.ts";

export interface EmergingOptions {
  recentDays: number;
  baselineDays: number;
  minLift: number;
  minRecentDocs: number;
  /** Distinct companies (CIK, else ticker, else document) in the recent window. */
  minRecentCompanies: number;
  maxTopics: number;
}

export const DEFAULT_EMERGING_OPTIONS: EmergingOptions = {
  recentDays: 180,
  baselineDays: 730,
  minLift: 1.5,
  minRecentDocs: 2,
  minRecentCompanies: 2,
  maxTopics: 25,
};

const DAY_MS = 86_400_000;
const addDays = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const SMOOTHING = 0.5;

function detectFor(
  docs: TopicDocument[],
  mentions: TopicMention[],
  opts: EmergingOptions,
): (EmergingTopicInput & { companies: number })[] {
  const latest =
    docs
      .map((d) => d.doc_date)
      .sort()
      .at(-1) ?? "";
  if (!latest) return [];
  const recentStart = addDays(latest, -(opts.recentDays - 1));
  const baselineStart = addDays(recentStart, -opts.baselineDays);
  const window = new Map<string, "recent" | "baseline">();
  const company = new Map<string, string>();
  for (const d of docs) {
    if (d.doc_date >= recentStart) window.set(d.doc_id, "recent");
    else if (d.doc_date >= baselineStart) window.set(d.doc_id, "baseline");
    company.set(d.doc_id, d.cik ?? d.ticker ?? d.doc_id);
  }
  const totals = { recent: 0, baseline: 0 };
  for (const w of window.values()) totals[w]++;
  const per = new Map<string, { recent: Set<string>; baseline: Set<string>; companies: Set<string> }>();
  for (const m of mentions) {
    const w = window.get(m.doc_id);
    // Only phrases: a single word rising in a handful of documents is mostly style.
    if (!w || !m.topic.includes(" ")) continue;
    const e = per.get(m.topic) ?? { recent: new Set(), baseline: new Set(), companies: new Set() };
    e[w].add(m.doc_id);
    if (w === "recent") e.companies.add(company.get(m.doc_id) ?? m.doc_id);
    per.set(m.topic, e);
  }
  const out: (EmergingTopicInput & { companies: number })[] = [];
  for (const [topic, e] of per) {
    const recentShare = (e.recent.size + SMOOTHING) / (totals.recent + 2 * SMOOTHING);
    const baselineShare = (e.baseline.size + SMOOTHING) / (totals.baseline + 2 * SMOOTHING);
    const lift = recentShare / baselineShare;
    if (lift < opts.minLift || e.recent.size < opts.minRecentDocs || e.companies.size < opts.minRecentCompanies) {
      continue;
    }
    out.push({
      topic,
      lift,
      recent_share: e.recent.size / Math.max(1, totals.recent),
      baseline_share: e.baseline.size / Math.max(1, totals.baseline),
      recent_doc_count: e.recent.size,
      window_start: recentStart,
      window_end: latest,
      baseline_start: baselineStart,
      companies: e.companies.size,
    });
  }
  return out;
}

export function detectEmergingTopics(
  docs: TopicDocument[],
  mentions: TopicMention[],
  opts: EmergingOptions = DEFAULT_EMERGING_OPTIONS,
): EmergingTopicInput[] {
  const best = new Map<string, EmergingTopicInput & { companies: number }>();
  const sources: TopicSourceType[] = ["transcript", "filing"];
  for (const source of sources) {
    const ds = docs.filter((d) => d.source_type === source);
    const ids = new Set(ds.map((d) => d.doc_id));
    for (const e of detectFor(
      ds,
      mentions.filter((m) => ids.has(m.doc_id)),
      opts,
    )) {
      const seen = best.get(e.topic);
      if (!seen || e.lift > seen.lift) best.set(e.topic, e);
    }
  }
  return [...best.values()]
    .sort((a, b) => b.lift - a.lift || b.companies - a.companies || a.topic.localeCompare(b.topic))
    .slice(0, opts.maxTopics)
    .map(({ companies: _, ...e }) => e);
}
