/**
 * Reads the two transcript formats we ingest:
 *  - structured JSON (Motley Fool via la83la/earnings-call-transcripts): header_texts,
 *    prepared_remarks and q_and_a as [{speaker, speech}], participants as
 *    "Name--Title" or "Name--Firm -- Analyst";
 *  - plain text (ECTSum): one sentence per line, speaker names removed.
 * Ticker, quarter and fiscal year come from the file name, TICKER_qN_YYYY.
 */
import type { TranscriptSection } from "../../../domain/financials/transcripts.ts";

export interface RawUtterance {
  section: TranscriptSection;
  speaker: string | null;
  text: string;
}

export interface ParsedTranscript {
  ticker: string;
  fiscal_year: number;
  fiscal_quarter: number;
  header_texts: string[];
  /** Raw participant lines; empty for plain text. */
  participants: string[];
  utterances: RawUtterance[];
  format: "structured_json" | "plain_text";
}

const FILE_NAME_RE = /^([A-Za-z][A-Za-z0-9.-]{0,9})_q([1-4])_(\d{4})(?:_transcript)?\.(?:json|txt)$/i;

export function parseFileName(name: string): { ticker: string; fiscal_quarter: number; fiscal_year: number } | null {
  const m = FILE_NAME_RE.exec(name);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  return { ticker: m[1].toUpperCase(), fiscal_quarter: Number(m[2]), fiscal_year: Number(m[3]) };
}

export class TranscriptFormatError extends Error {
  override readonly name = "TranscriptFormatError";
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function turns(v: unknown, section: TranscriptSection, field: string): RawUtterance[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new TranscriptFormatError(`${field} must be an array`);
  const out: RawUtterance[] = [];
  for (const [i, t] of v.entries()) {
    if (!isRecord(t) || typeof t.speech !== "string") throw new TranscriptFormatError(`${field}[${i}] has no speech`);
    const text = t.speech.trim();
    if (!text) continue;
    out.push({ section, speaker: typeof t.speaker === "string" ? t.speaker.trim() || null : null, text });
  }
  return out;
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string").map((s) => s.trim()) : [];

export function parseStructured(fileName: string, content: string): ParsedTranscript {
  const id = parseFileName(fileName);
  if (!id) throw new TranscriptFormatError(`file name ${fileName} is not TICKER_qN_YYYY.json`);
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (err) {
    throw new TranscriptFormatError(`not JSON: ${(err as Error).message}`);
  }
  if (!isRecord(json)) throw new TranscriptFormatError("top level must be an object");
  const utterances = [
    ...turns(json.prepared_remarks, "prepared_remarks", "prepared_remarks"),
    ...turns(json.q_and_a, "q_and_a", "q_and_a"),
  ];
  if (utterances.length === 0) throw new TranscriptFormatError("no prepared_remarks or q_and_a speech");
  return {
    ...id,
    header_texts: strings(json.header_texts),
    participants: strings(json.participants),
    utterances,
    format: "structured_json",
  };
}

export function parsePlainText(fileName: string, content: string): ParsedTranscript {
  const id = parseFileName(fileName);
  if (!id) throw new TranscriptFormatError(`file name ${fileName} is not TICKER_qN_YYYY_transcript.txt`);
  const utterances = content
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .map((text): RawUtterance => ({ section: "text", speaker: null, text }));
  if (utterances.length === 0) throw new TranscriptFormatError("empty transcript");
  return { ...id, header_texts: [], participants: [], utterances, format: "plain_text" };
}
