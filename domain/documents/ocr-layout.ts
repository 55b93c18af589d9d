/**
 * Reading order for OCR output. Tesseract's automatic segmentation returns paragraphs; on a
 * sparse page (an invoice, a chart, a form) it splits a table row into one fragment per
 * cell, so "Garden work" and "CHF 3'360.00" end up in different paragraphs. When most lines
 * are such short fragments, the page is re-read row by row instead: fragments sharing a
 * baseline are joined left to right ("Garden work | 28 std. | CHF 120.00").
 */
import type { TextBlock } from "./types.ts";

export interface Bbox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
export interface OcrWord {
  text: string;
  confidence: number;
  bbox: Bbox;
}
export interface OcrLine {
  text: string;
  confidence: number;
  bbox: Bbox;
  words: OcrWord[];
}
export interface OcrParagraph {
  lines: OcrLine[];
  bbox: Bbox;
}
export interface OcrPage {
  paragraphs: OcrParagraph[];
  /** Mean confidence Tesseract reports for the page (0-100). */
  confidence: number;
}

function allLines(page: OcrPage): OcrLine[] {
  return page.paragraphs.flatMap((p) => p.lines);
}

/** Rows of lines whose vertical centres lie within half a line height of each other. */
export function rowsOf(lines: readonly OcrLine[]): OcrLine[][] {
  const sorted = [...lines].sort((a, b) => a.bbox.y0 + a.bbox.y1 - (b.bbox.y0 + b.bbox.y1));
  const rows: OcrLine[][] = [];
  for (const line of sorted) {
    const yc = (line.bbox.y0 + line.bbox.y1) / 2;
    const h = line.bbox.y1 - line.bbox.y0;
    const row = rows[rows.length - 1];
    const first = row?.[0];
    if (row && first) {
      const ryc = (first.bbox.y0 + first.bbox.y1) / 2;
      const rh = first.bbox.y1 - first.bbox.y0;
      if (Math.abs(yc - ryc) < Math.min(h, rh) * 0.5) {
        row.push(line);
        continue;
      }
    }
    rows.push([line]);
  }
  for (const row of rows) row.sort((a, b) => a.bbox.x0 - b.bbox.x0);
  return rows;
}

/** Whether the page is sparse: most lines are short fragments that share rows with others. */
function isSparse(page: OcrPage): boolean {
  const lines = allLines(page);
  if (lines.length < 6) return false;
  const width = Math.max(...lines.map((l) => l.bbox.x1)) - Math.min(...lines.map((l) => l.bbox.x0));
  const short = lines.filter((l) => l.bbox.x1 - l.bbox.x0 < width * 0.35).length;
  const shared = rowsOf(lines).filter((r) => r.length >= 2).length;
  return short >= lines.length * 0.6 && shared >= 3;
}

/** OCR text as blocks in reading order (paragraphs, or rows on a sparse page). */
export function ocrBlocks(page: OcrPage, pageNo?: number): TextBlock[] {
  const at = (text: string, kind: TextBlock["kind"]): TextBlock =>
    pageNo === undefined ? { text, kind } : { text, kind, page: pageNo };
  if (!isSparse(page)) {
    return page.paragraphs
      .map((p) => p.lines.map((l) => l.text).join("\n"))
      .filter((t) => t.trim().length > 0)
      .map((t) => at(t, "ocr"));
  }
  // Rows; a gap of more than two row heights starts a new block.
  const blocks: TextBlock[] = [];
  let cur: string[] = [];
  let lastBottom = Number.NEGATIVE_INFINITY;
  for (const row of rowsOf(allLines(page))) {
    const top = Math.min(...row.map((l) => l.bbox.y0));
    const h = Math.max(...row.map((l) => l.bbox.y1 - l.bbox.y0));
    if (cur.length && top - lastBottom > h * 2) {
      blocks.push(at(cur.join("\n"), "ocr"));
      cur = [];
    }
    cur.push(row.map((l) => l.text).join(" | "));
    lastBottom = Math.max(...row.map((l) => l.bbox.y1));
  }
  if (cur.length) blocks.push(at(cur.join("\n"), "ocr"));
  return blocks;
}
