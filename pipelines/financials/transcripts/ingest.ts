/**
 * Transcript ingest: every TICKER_qN_YYYY.json (structured) and TICKER_qN_YYYY_transcript.txt
 * (plain) under a directory becomes one TranscriptRecord. Re-running is idempotent: the
 * doc_id is a UUID v5 of ticker and fiscal period, so the same call from either source
 * lands on the same row, and the richer source wins (TRANSCRIPT_SOURCE_RANK).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { randomUUIDv5 } from "bun";
import type { TranscriptRecord, TranscriptStore, Utterance } from "../../../domain/financials/transcripts.ts";
import { CompanyDirectory, findReferenceFile, MarketData } from "../reference/index.ts";
import { extractCallDate } from "./call-date.ts";
import { type ParsedTranscript, parsePlainText, parseStructured } from "./parse.ts";
import { classifyParticipants, countWords, SpeakerMatcher } from "./speakers.ts";

/** Fixed namespace for transcript doc_ids (a random UUID chosen once; never change it). */
export const TRANSCRIPT_NAMESPACE = "9f3b2c1e-5d7a-4e8b-a6c4-2b1d0e9f8a7c";

export function transcriptDocId(ticker: string, fiscalYear: number, fiscalQuarter: number): string {
  return randomUUIDv5(`transcript:${ticker.toUpperCase()}:${fiscalYear}:Q${fiscalQuarter}`, TRANSCRIPT_NAMESPACE);
}

export interface TranscriptContext {
  companies: CompanyDirectory;
  market: MarketData;
  now?: () => Date;
}

export function buildTranscriptRecord(
  p: ParsedTranscript,
  sourceFile: string,
  ctx: TranscriptContext,
): TranscriptRecord {
  const participants = classifyParticipants(p.participants, p.utterances);
  const matcher = new SpeakerMatcher(participants);
  const utterances: Utterance[] = p.utterances.map((u, seq) => ({
    seq,
    section: u.section,
    speaker: u.speaker,
    role: matcher.role(u.speaker),
    text: u.text,
    word_count: countWords(u.text),
  }));
  const wordsBy = (role: Utterance["role"]) =>
    utterances.filter((u) => u.role === role).reduce((n, u) => n + u.word_count, 0);
  const hasSpeakers = p.format === "structured_json";
  const company = ctx.companies.byTicker(p.ticker);
  const callDate = extractCallDate(
    p.header_texts,
    utterances.map((u) => u.text),
  );
  const price = callDate ? ctx.market.closeOn(p.ticker, callDate) : null;
  const shares = callDate && company ? ctx.market.sharesOn(company.cik, callDate) : null;
  return {
    summary: {
      doc_id: transcriptDocId(p.ticker, p.fiscal_year, p.fiscal_quarter),
      ticker: p.ticker,
      exchange: company?.exchange ?? null,
      company_name: company?.name ?? null,
      call_date: callDate,
      fiscal_year: p.fiscal_year,
      fiscal_quarter: p.fiscal_quarter,
      period_label: `Q${p.fiscal_quarter} ${p.fiscal_year}`,
      executives: participants.executives,
      analysts: participants.analysts,
      total_words: utterances.reduce((n, u) => n + u.word_count, 0),
      total_utterances: utterances.length,
      executive_word_count: hasSpeakers ? wordsBy("executive") : null,
      analyst_word_count: hasSpeakers ? wordsBy("analyst") : null,
      market_cap_usd: price !== null && shares !== null ? Math.round(price * shares) : null,
      stock_price_at_close: price,
      indexed_at: (ctx.now?.() ?? new Date()).toISOString(),
    },
    cik: company?.cik ?? null,
    source_format: p.format,
    source_file: basename(sourceFile),
    utterances,
  };
}

export interface IngestReport {
  files: number;
  inserted: number;
  updated: number;
  kept_existing: number;
  skipped: { file: string; reason: string }[];
}

export interface TranscriptIngestOptions {
  /** company_tickers.json; default: sec/company_tickers.json found beside or above `dir`. */
  companyTickersPath?: string;
  /** Daily price files; default: market/daily found beside or above `dir`. */
  pricesDir?: string;
  /** SEC companyfacts JSON (shares outstanding); default: sec/companyfacts beside or above `dir`. */
  companyFactsDir?: string;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

export function transcriptContext(dir: string, opts: TranscriptIngestOptions = {}): TranscriptContext {
  const tickers = opts.companyTickersPath ?? findReferenceFile(dir, "sec/company_tickers.json");
  return {
    companies: tickers ? CompanyDirectory.load(tickers) : CompanyDirectory.empty(),
    market: new MarketData(
      opts.pricesDir ?? findReferenceFile(dir, "market/daily"),
      opts.companyFactsDir ?? findReferenceFile(dir, "sec/companyfacts"),
    ),
  };
}

export async function ingestTranscriptsDirectory(
  store: { transcripts: TranscriptStore },
  dir: string,
  opts: TranscriptIngestOptions = {},
): Promise<IngestReport> {
  const ctx = transcriptContext(dir, opts);
  const report: IngestReport = { files: 0, inserted: 0, updated: 0, kept_existing: 0, skipped: [] };
  // Structured files first so that, on a first run, the plain-text twin of a call is
  // compared against the richer record rather than written and then replaced.
  const files = walk(dir).sort((a, b) => Number(b.endsWith(".json")) - Number(a.endsWith(".json")));
  for (const file of files) {
    const name = basename(file);
    const parse = name.endsWith(".json") ? parseStructured : name.endsWith("_transcript.txt") ? parsePlainText : null;
    if (!parse) continue;
    report.files++;
    try {
      const record = buildTranscriptRecord(parse(name, readFileSync(file, "utf8")), file, ctx);
      report[await store.transcripts.upsert(record)]++;
    } catch (err) {
      report.skipped.push({ file: name, reason: (err as Error).message });
    }
  }
  return report;
}
