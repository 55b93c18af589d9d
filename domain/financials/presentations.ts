/**
 * 8-K filings with their exhibits (press releases, investor presentations) as Markdown,
 * served by GET /v1/presentations/{accession_number} (spec 2.18) and read by the topic
 * pipeline. Written by pipelines/financials/filings; adapters in adapters/financials.
 */

export const ACCESSION_RE = /^\d{10}-\d{2}-\d{6}$/;

/** GET /v1/presentations/{accession_number} (spec 2.18). */
export interface Presentation {
  accession_number: string;
  cik: string | null;
  ticker: string | null;
  company_name: string | null;
  form_type: string | null;
  exhibit_type: string | null;
  doc_type_label: string | null;
  published_at: string | null;
  sec_url: string | null;
  s3_url: string | null;
  markdown: string | null;
}

export interface FilingDocument {
  /** The SGML <TYPE>: "8-K", "EX-99.1", ... */
  doc_type: string;
  sequence: number;
  filename: string | null;
  description: string | null;
  doc_type_label: string;
  sec_url: string | null;
  markdown: string;
}

export interface FilingRecord {
  /** The accession number when known, else "file:<name>" (files that do not state one). */
  filing_key: string;
  accession_number: string | null;
  cik: string | null;
  ticker: string | null;
  company_name: string | null;
  form_type: string | null;
  /** YYYY-MM-DD: filing date when the submission states it, else the date of report. */
  filed_date: string | null;
  source_file: string;
  documents: FilingDocument[];
}

/** What the topic pipeline reads: one filing document's text with its company and date. */
export interface FilingText {
  filing_key: string;
  doc_type: string;
  sequence: number;
  cik: string | null;
  ticker: string | null;
  company_name: string | null;
  filed_date: string | null;
  markdown: string;
}

export interface FilingStore {
  /** Replaces the filing and its documents (idempotent by filing_key). */
  upsertFiling(f: FilingRecord): Promise<void>;
  presentation(accession: string): Promise<Presentation | null>;
  texts(): Promise<FilingText[]>;
}

/** Exhibit chosen as "the presentation" of a filing: a deck beats a press release beats the 8-K body. */
export function presentationRank(d: Pick<FilingDocument, "doc_type" | "doc_type_label">): number {
  if (!/^EX-99/i.test(d.doc_type)) return 0;
  return d.doc_type_label === "Investor presentation" ? 2 : 1;
}
