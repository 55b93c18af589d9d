/**
 * What the financials service and the ingest pipelines need from engines: the SQL read
 * models (statements, segments, research), the workbook renderer and outgoing mail.
 * Adapters implement these; composition/ wires them.
 */
import type { WorkbookSpec } from "./exports/workbook.ts";
import type {
  CompanyFacts,
  CompanyFactsBundle,
  CompanyProfile,
  FilingRow,
  IncomeStatementRecord,
  RatioRecord,
  RevenueSegmentRecord,
  StatementQuery,
  StoredSegment,
} from "./fields.ts";
import type { FilingStore } from "./presentations.ts";
import type { TopicStore } from "./topics.ts";
import type { TranscriptStore } from "./transcripts.ts";

export interface FinancialsReader {
  /** Newest first. */
  income(cik: string, q: StatementQuery): Promise<IncomeStatementRecord[]>;
  ratios(cik: string, q: StatementQuery): Promise<RatioRecord[]>;
  company(cik: string): Promise<CompanyFacts | null>;
  /** Every CIK with ingested data. */
  listCiks(): Promise<string[]>;
  /** A counter that changes whenever this process writes financial data (lets readers cache). */
  generation?(): number;
}

/** Revenue segments (kept apart from FinancialsReader, whose consumers do not need them). */
export interface RevenueSegmentsReader {
  /** Newest periods first; `limit` counts periods (each may give one record per axis). */
  revenueSegments(cik: string, q: StatementQuery): Promise<RevenueSegmentRecord[]>;
}

export interface FinancialsWriter {
  /** The fingerprint stored for a (cik, source), or null when never ingested. */
  sourceFingerprint(cik: string, source: string): Promise<string | null>;
  /** Creates or updates a company; null fields leave stored values as they are. */
  upsertCompany(profile: CompanyProfile): Promise<void>;
  /** Inserts filings, updating known ones (richer sources fill what poorer ones left null). */
  upsertFilings(cik: string, rows: FilingRow[]): Promise<void>;
  /** A filing of the company with this form and report date, if known. */
  findFiling(cik: string, form: string, reportDate: string): Promise<string | null>;
  /** Replaces a company's facts, statements and ratios in one transaction. */
  replaceCompanyFacts(bundle: CompanyFactsBundle): Promise<void>;
  /** Replaces the segment rows that came from one source document. */
  replaceSegments(cik: string, source: string, fingerprint: string, rows: StoredSegment[]): Promise<void>;
  /** Records a source's fingerprint (for sources whose rows were written by other calls). */
  setFingerprint(cik: string, source: string, fingerprint: string): Promise<void>;
}

export type FinancialsStore = FinancialsReader & RevenueSegmentsReader & FinancialsWriter;

/** The research read models (transcripts, 8-K exhibits, topics): what the service reads, what the ingest pipelines write. */
export interface ResearchStores {
  transcripts: TranscriptStore;
  filings: FilingStore;
  topics: TopicStore;
}

/** Renders export workbooks (the xlsx adapter, wired in composition/). */
export interface SpreadsheetRenderer {
  readonly contentType: string;
  readonly extension: string;
  render(spec: WorkbookSpec): Promise<Uint8Array<ArrayBuffer>>;
}

// Outgoing e-mail (POST /v1/share/email). The SMTP adapter implements it; composition wires
// it only when CAIRN_SMTP_URL is set, so a null mailer means "not configured" (503).

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array;
}

export interface OutgoingMail {
  /** Bare addresses, already validated (no display names, no line breaks). */
  to: string[];
  /** Where replies go: the user who shared, so the sender address can stay a no-reply one. */
  replyTo?: string;
  subject: string;
  text: string;
  attachments: MailAttachment[];
}

export interface SentMail {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

export interface Mailer {
  /**
   * Hands the message to the mail server. Throws AppError "unavailable" when the server
   * cannot be reached or refuses the sender, "validation" when it refuses every recipient.
   */
  send(mail: OutgoingMail): Promise<SentMail>;
  close(): Promise<void>;
}
