/**
 * Company topics extracted from transcripts and filings (spec 2.16) and emerging topics
 * (spec 2.17). pipelines/financials/topics computes them; adapters/financials stores them. Topic and
 * emerging-topic ids are stable integers: the same normalised name keeps its id across
 * rebuilds.
 */

export const TOPIC_SOURCE_TYPES = ["all", "transcript", "filing"] as const;
export type TopicSourceFilter = (typeof TOPIC_SOURCE_TYPES)[number];
export type TopicSourceType = Exclude<TopicSourceFilter, "all">;

/** How a document's date was obtained; estimates are flagged, never passed off as facts. */
export type DateBasis = "call_date" | "filing_date" | "fiscal_period_estimate";

export interface TopicDocument {
  doc_id: string;
  source_type: TopicSourceType;
  cik: string | null;
  ticker: string | null;
  company_name: string | null;
  /** YYYY-MM-DD */
  doc_date: string;
  date_basis: DateBasis;
}

export interface TopicMention {
  /** Normalised topic name (lower case, singular head noun). */
  topic: string;
  doc_id: string;
  /** Score normalised by the document's best topic: (0, 1]. */
  importance: number;
  /** Loughran-McDonald net tone of the sentences naming the topic: -1..1. */
  sentiment: number;
  mentions: number;
}

/** Element of spec 2.16 `topics`. */
export interface ExtractedTopic {
  topic_name: string;
  doc_count: number;
  avg_importance: number;
  avg_sentiment: number;
  latest_date: string;
  earliest_date: string;
}

export interface ExtractedTopicsQuery {
  date_from: string;
  date_to: string;
  source_type: TopicSourceFilter;
  limit: number;
}

export interface EmergingTopicInput {
  topic: string;
  lift: number;
  recent_share: number;
  baseline_share: number;
  recent_doc_count: number;
  window_start: string;
  window_end: string;
  baseline_start: string;
}

export interface EmergingTopic extends EmergingTopicInput {
  emerging_topic_id: number;
  topic_id: number;
  detected_at: string;
}

/** Element of spec 2.17 `companies`. */
export interface EmergingTopicCompany {
  cik: string;
  doc_count: number;
  company_name: string;
  ticker: string;
  latest_date: string;
}

export interface TopicStore {
  /**
   * Replaces every topic document and mention with this corpus in one transaction; topic
   * rows are only ever added, so ids survive. Returns the id of every topic named.
   */
  replaceCorpus(docs: TopicDocument[], mentions: TopicMention[]): Promise<Map<string, number>>;
  extracted(cik: string, q: ExtractedTopicsQuery): Promise<ExtractedTopic[]>;
  /** The company name recorded with the CIK's documents, if any. */
  companyName(cik: string): Promise<string | null>;
  /** Marks exactly these topics as currently emerging (ids kept per topic). */
  replaceEmerging(list: EmergingTopicInput[], detectedAt: string): Promise<EmergingTopic[]>;
  /** Currently emerging topics, strongest lift first. */
  listEmerging(): Promise<EmergingTopic[]>;
  getEmerging(id: number): Promise<EmergingTopic | null>;
  /** Companies whose documents in the topic's recent window mention it, most documents first. */
  emergingCompanies(e: EmergingTopic, limit: number): Promise<EmergingTopicCompany[]>;
}

/** The default window start of extracted topics: the same calendar day three years back (UTC). */
export function threeYearsBefore(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear() - 3, now.getUTCMonth(), now.getUTCDate()));
  // 29 February three years back does not exist: Date rolls to 1 March, which is the intent.
  return d.toISOString().slice(0, 10);
}
