/**
 * Earnings-call transcripts as served (spec 2.15) and the store port the ingest pipeline
 * (pipelines/financials/transcripts) writes and GET /v1/transcripts reads. Adapters: adapters/financials.
 */

/** Element of `executives` (spec 2.15 leaves the shape open). */
export interface TranscriptExecutive {
  name: string;
  title: string | null;
}

/** Element of `analysts`. */
export interface TranscriptAnalyst {
  name: string;
  firm: string | null;
}

/** Element of GET /v1/transcripts `transcripts` (spec 2.15). */
export interface TranscriptSummary {
  doc_id: string;
  ticker: string | null;
  exchange: string | null;
  company_name: string | null;
  /** YYYY-MM-DD; null when the source states no date. */
  call_date: string | null;
  fiscal_year: number | null;
  fiscal_quarter: number | null;
  period_label: string | null;
  executives: TranscriptExecutive[];
  analysts: TranscriptAnalyst[];
  total_words: number | null;
  total_utterances: number | null;
  /** Null when the source has no speaker labels (so nobody can be attributed). */
  executive_word_count: number | null;
  analyst_word_count: number | null;
  market_cap_usd: number | null;
  stock_price_at_close: number | null;
  /** ISO-8601 timestamp of the ingest that last wrote the record. */
  indexed_at: string;
}

export type SpeakerRole = "executive" | "analyst" | "operator" | "unknown";
export type TranscriptSection = "prepared_remarks" | "q_and_a" | "text";

export interface Utterance {
  seq: number;
  section: TranscriptSection;
  speaker: string | null;
  role: SpeakerRole | null;
  text: string;
  word_count: number;
}

/**
 * Source formats ranked by richness: when two sources describe the same call (same
 * doc_id), the higher rank wins and a lower one never overwrites it.
 */
export const TRANSCRIPT_SOURCE_RANK = { plain_text: 1, structured_json: 2 } as const;
export type TranscriptSourceFormat = keyof typeof TRANSCRIPT_SOURCE_RANK;

export interface TranscriptRecord {
  summary: TranscriptSummary;
  cik: string | null;
  source_format: TranscriptSourceFormat;
  source_file: string;
  utterances: Utterance[];
}

export interface TranscriptQuery {
  ticker?: string;
  fiscal_year?: number;
  fiscal_quarter?: number;
  /** Calls on or after (YYYY-MM-DD). */
  from_date?: string;
  /** Calls on or before (YYYY-MM-DD). */
  to_date?: string;
  limit: number;
  offset: number;
}

/** What the topic pipeline reads: one call with its text. */
export interface TranscriptText {
  doc_id: string;
  cik: string | null;
  ticker: string | null;
  company_name: string | null;
  call_date: string | null;
  fiscal_year: number | null;
  fiscal_quarter: number | null;
  utterances: Utterance[];
}

export type UpsertOutcome = "inserted" | "updated" | "kept_existing";

export interface TranscriptStore {
  /** Idempotent by doc_id; a lower-ranked source never replaces a higher-ranked one. */
  upsert(t: TranscriptRecord): Promise<UpsertOutcome>;
  /** Newest call first (undated calls last), then ticker. */
  list(q: TranscriptQuery): Promise<{ total: number; transcripts: TranscriptSummary[] }>;
  texts(): Promise<TranscriptText[]>;
}
