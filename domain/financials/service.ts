/**
 * The financials area's service (spec 4.4): statements, ratios, company facts and revenue
 * segments per CIK; transcripts, 8-K presentations and topics; spreadsheet exports and
 * e-mail sharing. Routes validate and respond; the lookups and 404 decisions live here.
 * No I/O of its own: it reaches the stores, the renderer and the mailer through ports.ts.
 */
import { AppError } from "../errors.ts";
import type { BuiltFile, CompsFileQuery, ExportSources, FinancialsFileQuery } from "./exports/files.ts";
import { compsFile, financialsFile } from "./exports/files.ts";
import {
  type CompanyFacts,
  type IncomeStatementRecord,
  normalizeCik,
  type RatioRecord,
  type RevenueSegmentRecord,
  type StatementQuery,
} from "./fields.ts";
import type {
  FinancialsReader,
  Mailer,
  ResearchStores,
  RevenueSegmentsReader,
  SentMail,
  SpreadsheetRenderer,
} from "./ports.ts";
import type { Presentation } from "./presentations.ts";
import { type ShareRequest, type Sharer, shareByEmail } from "./share.ts";
import {
  type EmergingTopic,
  type EmergingTopicCompany,
  type ExtractedTopic,
  type TopicSourceFilter,
  threeYearsBefore,
} from "./topics.ts";
import type { TranscriptQuery, TranscriptSummary } from "./transcripts.ts";

export interface FinancialsServiceDeps {
  /** Public SEC fundamentals (statements, ratios, company facts), ingested by pipelines/financials/sec. */
  statements: FinancialsReader;
  /** Revenue by segment from XBRL instances (same store as `statements` today). */
  segments: RevenueSegmentsReader;
  /** Transcripts, 8-K exhibits and topics. */
  research: ResearchStores;
  /** Renders export workbooks (.xlsx). */
  spreadsheets: SpreadsheetRenderer;
  /** Null when no SMTP server is configured: e-mail sharing is then "unavailable" (503). */
  mailer: Mailer | null;
}

export interface EmergingTopicListing extends Omit<EmergingTopic, "topic" | "topic_id"> {
  emerging_topic_name: string;
}

export class FinancialsService {
  /**
   * A counter that changes whenever this process writes financial data, when the store
   * keeps one: the HTTP response cache keys its entries on it. Undefined otherwise.
   */
  readonly generation: (() => number) | undefined;
  private readonly exportSources: ExportSources;

  constructor(private readonly deps: FinancialsServiceDeps) {
    this.generation = deps.statements.generation?.bind(deps.statements);
    this.exportSources = { statements: deps.statements, spreadsheets: deps.spreadsheets };
  }

  /** The stored 10-digit CIK; a malformed one names no company (not_found with the raw value). */
  cik(raw: string): string {
    const cik = normalizeCik(raw);
    if (!cik) throw new AppError("not_found", `No company with CIK ${raw}`);
    return cik;
  }

  async ratios(cik: string, q: StatementQuery): Promise<RatioRecord[]> {
    return this.orNotFound(cik, await this.deps.statements.ratios(cik, q));
  }

  async income(cik: string, q: StatementQuery): Promise<IncomeStatementRecord[]> {
    return this.orNotFound(cik, await this.deps.statements.income(cik, q));
  }

  async revenueSegments(cik: string, q: StatementQuery): Promise<RevenueSegmentRecord[]> {
    return this.orNotFound(cik, await this.deps.segments.revenueSegments(cik, q));
  }

  async company(cik: string): Promise<CompanyFacts> {
    const company = await this.deps.statements.company(cik);
    if (!company) throw new AppError("not_found", `No company with CIK ${cik}`);
    return company;
  }

  /** Empty results are only a 404 when the company itself is unknown. */
  private async orNotFound<T>(cik: string, rows: T[]): Promise<T[]> {
    if (rows.length === 0 && !(await this.deps.statements.company(cik)))
      throw new AppError("not_found", `No company with CIK ${cik}`);
    return rows;
  }

  async transcripts(
    q: TranscriptQuery,
  ): Promise<{ total: number; limit: number; offset: number; transcripts: TranscriptSummary[] }> {
    const page = await this.deps.research.transcripts.list(q);
    return { total: page.total, limit: q.limit, offset: q.offset, transcripts: page.transcripts };
  }

  /**
   * A company's extracted topics over a window that defaults to the last three years.
   * A malformed CIK matches nothing: an empty list, not a 404.
   */
  async extractedTopics(
    rawCik: string,
    q: { date_from?: string | undefined; date_to?: string | undefined; source_type: TopicSourceFilter; limit: number },
    now: Date = new Date(),
  ): Promise<{
    cik: string;
    period: { date_from: string; date_to: string };
    topics: ExtractedTopic[];
    company_name: string | null;
  }> {
    const cik = normalizeCik(rawCik) ?? "";
    const period = {
      date_from: q.date_from ?? threeYearsBefore(now),
      date_to: q.date_to ?? now.toISOString().slice(0, 10),
    };
    const topics = await this.deps.research.topics.extracted(cik, {
      ...period,
      source_type: q.source_type,
      limit: q.limit,
    });
    const company_name = await this.deps.research.topics.companyName(cik);
    return { cik, period, topics, company_name };
  }

  async emergingTopics(): Promise<EmergingTopicListing[]> {
    const list = await this.deps.research.topics.listEmerging();
    return list.map(({ topic, topic_id: _, ...e }) => ({ ...e, emerging_topic_name: topic }));
  }

  async emergingCompanies(
    id: number,
    limit: number,
  ): Promise<{ emerging_topic_id: number; emerging_topic_name: string; companies: EmergingTopicCompany[] }> {
    const topic = await this.deps.research.topics.getEmerging(id);
    if (!topic) throw new AppError("not_found", `No emerging topic with id ${id}`);
    const companies = await this.deps.research.topics.emergingCompanies(topic, limit);
    return { emerging_topic_id: id, emerging_topic_name: topic.topic, companies };
  }

  async presentation(accession: string): Promise<Presentation> {
    const p = await this.deps.research.filings.presentation(accession);
    if (!p) throw new AppError("not_found", `No filing with accession number ${accession}`);
    return p;
  }

  /** One company's statements and ratios as a workbook file; unknown CIK: not_found. */
  financialsFile(rawCik: string, q: FinancialsFileQuery): Promise<BuiltFile> {
    return financialsFile(this.exportSources, rawCik, q);
  }

  /** A comparable-companies grid as a workbook file; any unknown CIK: not_found listing them all. */
  compsFile(q: CompsFileQuery): Promise<BuiltFile> {
    return compsFile(this.exportSources, q);
  }

  /** Sends a message (and its workbook, built as the download would be) from the installation's address. */
  share(req: ShareRequest, user: Sharer): Promise<SentMail> {
    return shareByEmail(this.deps.mailer, this.exportSources, req, user);
  }
}
