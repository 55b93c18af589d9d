/**
 * EDGAR SGML submissions (the complete-submission .txt/.nc files): a header with the
 * filer and filing values, then <DOCUMENT> blocks each with TYPE, SEQUENCE, FILENAME,
 * DESCRIPTION and TEXT. Binary documents (PDF, images) are uuencoded inside TEXT.
 */

export interface SgmlHeader {
  accession_number: string | null;
  form_type: string | null;
  /** YYYY-MM-DD */
  filed_date: string | null;
  period_of_report: string | null;
  company_name: string | null;
  cik: string | null;
}

export interface SgmlDocument {
  type: string;
  sequence: number | null;
  filename: string | null;
  description: string | null;
  text: string;
}

const field = (block: string, name: string) => new RegExp(`^\\s*${name}:\\s*(.+?)\\s*$`, "mi").exec(block)?.[1] ?? null;
const tag = (block: string, name: string) => new RegExp(`<${name}>([^<\\n\\r]*)`, "i").exec(block)?.[1]?.trim() || null;
const ymd = (v: string | null) =>
  v && /^\d{8}$/.test(v) ? `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}` : null;

export function isSgmlSubmission(content: string): boolean {
  return /<SEC-DOCUMENT>|<SEC-HEADER>|ACCESSION NUMBER:|<SUBMISSION>|<ACCESSION-NUMBER>/i.test(content.slice(0, 4000));
}

/**
 * Both header dialects: the public .txt ("ACCESSION NUMBER: ...", one field per line)
 * and the dissemination .nc (<ACCESSION-NUMBER>..., tags run together on one line).
 */
export function parseSgmlHeader(content: string): SgmlHeader {
  const end = content.search(/<\/SEC-HEADER>|<DOCUMENT>/i);
  const head = end > 0 ? content.slice(0, end) : content.slice(0, 20_000);
  const either = (line: string, tagName: string) => field(head, line) ?? tag(head, tagName);
  // The first filer block is the registrant of an 8-K (later blocks may be other parties).
  return {
    accession_number: either("ACCESSION NUMBER", "ACCESSION-NUMBER"),
    form_type: either("CONFORMED SUBMISSION TYPE", "TYPE"),
    filed_date: ymd(either("FILED AS OF DATE", "FILING-DATE")),
    period_of_report: ymd(either("CONFORMED PERIOD OF REPORT", "PERIOD")),
    company_name: either("COMPANY CONFORMED NAME", "CONFORMED-NAME"),
    cik: either("CENTRAL INDEX KEY", "CIK"),
  };
}

export function splitSgmlDocuments(content: string): SgmlDocument[] {
  const out: SgmlDocument[] = [];
  for (const m of content.matchAll(/<DOCUMENT>([\s\S]*?)(?:<\/DOCUMENT>|$)/gi)) {
    const block = m[1] ?? "";
    const type = tag(block, "TYPE");
    if (!type) continue;
    const seq = tag(block, "SEQUENCE");
    const text = /<TEXT>([\s\S]*?)(?:<\/TEXT>|$)/i.exec(block)?.[1] ?? "";
    out.push({
      type: type.toUpperCase(),
      sequence: seq && /^\d+$/.test(seq) ? Number(seq) : null,
      filename: tag(block, "FILENAME"),
      description: tag(block, "DESCRIPTION"),
      text,
    });
  }
  return out;
}

/** Decodes the first uuencoded body ("begin 644 name" ... "end") in text, or null. */
export function uudecode(text: string): Uint8Array | null {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => /^begin [0-7]{3,4} /.test(l));
  if (start < 0) return null;
  const bytes: number[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line === "end" || line === "`") break;
    const n = (line.charCodeAt(0) - 32) & 63;
    if (n === 0) continue;
    const chars = [...line.slice(1)].map((c) => (c.charCodeAt(0) - 32) & 63);
    for (let i = 0, got = 0; got < n; i += 4) {
      const [a = 0, b = 0, c = 0, d = 0] = chars.slice(i, i + 4);
      const triple = [(a << 2) | (b >> 4), ((b & 15) << 4) | (c >> 2), ((c & 3) << 6) | d];
      for (const v of triple) if (got++ < n) bytes.push(v & 255);
    }
  }
  return new Uint8Array(bytes);
}
