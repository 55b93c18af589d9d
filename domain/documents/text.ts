/**
 * Blocks from the formats that are text already (spec 4.6: TXT, MD, CSV are a direct UTF-8
 * decode). Paragraphs are separated by blank lines; CSV rows become "column: value" lines so
 * a row reads (and embeds) as a sentence about one record.
 */
import type { TextBlock } from "./types.ts";

/** UTF-8 decode without a BOM; invalid sequences become U+FFFD rather than failing. */
export function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false, ignoreBOM: false }).decode(bytes);
}

/** Collapses runs of spaces and tabs, trims every line, and drops NULs. */
export function tidy(text: string): string {
  return text
    .replaceAll("\u0000", "")
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function paragraphs(text: string): string[] {
  return text
    .replace(/\r\n?/g, "\n")
    .split(/\n[ \t]*\n/)
    .map((p) => tidy(p))
    .filter((p) => p.length > 0);
}

/** Plain text: blank-line paragraphs, hard-wrapped lines joined (list items keep their line). */
export function textBlocks(text: string): TextBlock[] {
  const out: TextBlock[] = [];
  for (const p of paragraphs(text)) {
    const lines = p.split("\n");
    // Long lines were not wrapped by hand: each is a paragraph of its own (files written
    // one paragraph per line, with no blank lines between).
    const longest = Math.max(...lines.map((l) => l.length));
    if (lines.length > 1 && longest > 120) {
      for (const line of lines) out.push({ text: line, kind: "paragraph" });
    } else out.push({ text: p.replace(/\n(?!\s*([-*•]|\d+[.)])\s)/g, " "), kind: "paragraph" });
  }
  return out;
}

/**
 * Inline HTML in Markdown (tables and wrappers, common in converted filings) read as text:
 * rows end lines, cells are separated by " | ", other tags and comments go.
 */
export function stripInlineHtml(text: string): string {
  if (!/<[a-z!/][^>]*>/i.test(text)) return text;
  return text
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<\/t[dh]>\s*<t[dh][^>]*>/gi, " | ")
    .replace(/<\/(tr|p|div|li|h[1-6]|table|thead|tbody)>|<br\s*\/?>/gi, "\n")
    .replace(/<\/?[a-z][^>]*>/gi, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/** Markdown: paragraphs as written (tables and lists keep their lines); `#` lines are headings. */
export function markdownBlocks(text: string): TextBlock[] {
  const out: TextBlock[] = [];
  for (const p of paragraphs(stripInlineHtml(text))) {
    // A heading glued to the following text (no blank line) is its own block.
    const lines = p.split("\n");
    let buf: string[] = [];
    const flush = () => {
      if (buf.length) out.push({ text: buf.join("\n"), kind: "paragraph" });
      buf = [];
    };
    for (const line of lines) {
      if (/^#{1,6}\s/.test(line)) {
        flush();
        out.push({ text: line.replace(/^#{1,6}\s+/, "").replace(/\s+#+$/, ""), kind: "heading" });
      } else buf.push(line);
    }
    flush();
  }
  return out;
}

/** The delimiter of a CSV file: the candidate that splits the header line most consistently. */
export function sniffDelimiter(text: string): string {
  const lines = text.split(/\r?\n/, 6).filter((l) => l.length > 0);
  let best = ",";
  let bestScore = 0;
  for (const d of [",", ";", "\t", "|"]) {
    const counts = lines.map((l) => parseCsv(l, d)[0]?.length ?? 0);
    const first = counts[0] ?? 0;
    if (first < 2) continue;
    const consistent = counts.filter((c) => c === first).length;
    const score = consistent * 100 + first;
    if (score > bestScore) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}

/** RFC 4180 parsing: quoted fields may hold the delimiter, quotes ("") and newlines. */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field.length === 0) quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field.length > 0 || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim().length > 0));
}

const CSV_ROWS_PER_BLOCK = 10;

/**
 * CSV: the header names each value ("First Name: Sheryl; City: East Leonard"), ten rows per
 * block. A header is assumed when the first row has no empty or purely numeric cells.
 */
export function csvBlocks(text: string): TextBlock[] {
  const clean = text.replace(/^\uFEFF/, "");
  const rows = parseCsv(clean, sniffDelimiter(clean)).map((r) => r.map((f) => tidy(f)));
  if (rows.length === 0) return [];
  const first = rows[0] ?? [];
  const hasHeader =
    rows.length > 1 && first.every((h) => h.length > 0 && !/^[-+]?[\d.,]+%?$/.test(h)) && new Set(first).size > 1;
  const header = hasHeader ? first : null;
  const body = hasHeader ? rows.slice(1) : rows;
  const lines = body.map((r) =>
    header
      ? r
          .map((v, i) => (v ? `${header[i] ?? `Column ${i + 1}`}: ${v}` : ""))
          .filter(Boolean)
          .join("; ")
      : r.join(", "),
  );
  const blocks: TextBlock[] = [];
  if (header) blocks.push({ text: `Columns: ${header.join(", ")}`, kind: "heading" });
  for (let i = 0; i < lines.length; i += CSV_ROWS_PER_BLOCK) {
    const group = lines.slice(i, i + CSV_ROWS_PER_BLOCK).filter((l) => l.length > 0);
    if (group.length) blocks.push({ text: group.join("\n"), kind: "table" });
  }
  return blocks;
}
