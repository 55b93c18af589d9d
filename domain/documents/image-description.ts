/**
 * What an image is, when no vision model is configured (spec 4.6: "chart and diagram
 * description"): a description derived only from the image's size and where OCR found text.
 * It names its own origin, so nobody mistakes it for a model's reading of the picture.
 * The signals are simple and stated as likelihoods: a row of period labels (FY20, Q1, 2023)
 * under a column of scale values suggests a chart; lines whose words start at shared column
 * positions suggest a table; many long lines suggest a page of text.
 */
import type { OcrLine, OcrPage, OcrWord } from "./ocr-layout.ts";

export const DERIVED_LABEL = "[Image description, derived from layout and OCR — no vision model configured]";
export const VISION_LABEL = "[Image description, by vision model";

const NUMBER = /^[($€£¥-]*[-+]?\d[\d,.'’]*\s?(%|[kmbt]n?|bn)?\)?$/i;
const PERIOD =
  /^(fy|q[1-4]|h[12])['’-]?\d{2,4}$|^(19|20)\d{2}[a-z]?$|^q[1-4]$|^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*$/i;

/** The largest set (3 or more) of words on one baseline, left to right; null if none. */
function sharedBaseline(words: readonly OcrWord[]): OcrWord[] | null {
  let best: OcrWord[] | null = null;
  for (const w of words) {
    const h = w.bbox.y1 - w.bbox.y0;
    const row = words.filter((o) => Math.abs(o.bbox.y1 - w.bbox.y1) < Math.max(4, h * 0.5));
    if (row.length >= 3 && (!best || row.length > best.length)) best = row;
  }
  return best ? [...best].sort((a, b) => a.bbox.x0 - b.bbox.x0) : null;
}

function lineWords(page: OcrPage): OcrLine[] {
  return page.paragraphs.flatMap((p) => p.lines);
}

/** Lines that have words starting at three or more shared column positions. */
function tableRows(lines: readonly OcrLine[]): { rows: number; columns: number } {
  const rowsWithGaps = lines.filter((l) => {
    const h = Math.max(1, l.bbox.y1 - l.bbox.y0);
    let gaps = 0;
    for (let i = 1; i < l.words.length; i++) if (l.words[i]!.bbox.x0 - l.words[i - 1]!.bbox.x1 > h * 1.5) gaps++;
    return gaps >= 2;
  });
  if (rowsWithGaps.length < 3) return { rows: 0, columns: 0 };
  const columns = Math.round(
    rowsWithGaps.reduce((n, l) => {
      const h = Math.max(1, l.bbox.y1 - l.bbox.y0);
      let cells = 1;
      for (let i = 1; i < l.words.length; i++) if (l.words[i]!.bbox.x0 - l.words[i - 1]!.bbox.x1 > h * 1.5) cells++;
      return n + cells;
    }, 0) / rowsWithGaps.length,
  );
  return { rows: rowsWithGaps.length, columns };
}

function quote(s: string, max = 80): string {
  const t = s.length > max ? `${s.slice(0, max - 1)}…` : s;
  return `"${t}"`;
}

export interface DescribeInput {
  width: number | null;
  height: number | null;
  /** png, jpeg, svg (rasterised) */
  format: string;
  ocr: OcrPage;
}

/** The clearly labelled fallback description of an image. */
export function describeImage(input: DescribeInput): string {
  const { width, height, ocr } = input;
  const lines = lineWords(ocr);
  const words = lines.flatMap((l) => l.words);
  const parts: string[] = [DERIVED_LABEL];
  const size = width && height ? `${width}×${height}-pixel ` : "";
  const shape =
    width && height ? (width > height * 1.2 ? "landscape" : height > width * 1.2 ? "portrait" : "square") : "";
  parts.push(`A ${size}${shape ? `${shape} ` : ""}${input.format.toUpperCase()} image.`);
  if (words.length === 0) {
    parts.push("No text was recognised: it is likely a photograph, logo or purely graphical diagram.");
    return parts.join(" ");
  }
  const area = width && height ? width * height : 0;
  const textArea = lines.reduce((n, l) => n + (l.bbox.x1 - l.bbox.x0) * (l.bbox.y1 - l.bbox.y0), 0);
  const coverage = area > 0 ? Math.min(100, Math.round((textArea / area) * 100)) : null;
  parts.push(
    `OCR found ${words.length} words in ${lines.length} lines${coverage !== null ? `, covering about ${coverage}% of the image` : ""}.`,
  );

  const numeric = words.filter((w) => NUMBER.test(w.text));
  const periods = words.filter((w) => PERIOD.test(w.text));
  const percents = numeric.filter((w) => w.text.includes("%"));
  const table = tableRows(lines);
  // A chart: period labels sharing one baseline, and scale values stacked in a column.
  const periodRow = sharedBaseline(periods);
  const stacked = numeric.filter((w) =>
    numeric.some(
      (o) =>
        o !== w &&
        Math.abs(o.bbox.x1 - w.bbox.x1) < Math.max(15, (w.bbox.y1 - w.bbox.y0) * 1.5) &&
        Math.abs(o.bbox.y0 - w.bbox.y0) > (w.bbox.y1 - w.bbox.y0) * 2,
    ),
  );
  const signals: string[] = [];
  const chartLike =
    periodRow !== null || (table.rows < 3 && stacked.length >= 3 && numeric.length >= words.length * 0.3);
  if (chartLike) {
    signals.push("it is likely a chart or graph");
    if (periodRow) signals.push(`with category or period labels ${periodRow.map((w) => w.text).join(", ")}`);
    if (stacked.length >= 3) {
      const values = [...new Set(stacked.map((w) => w.text))].slice(0, 8);
      signals.push(`and values laid out in columns such as ${values.join(", ")}`);
    }
    if (percents.length >= 2) signals.push(`(${percents.length} percentages, e.g. a margin or share series)`);
  } else if (table.rows >= 3) {
    signals.push(`it is likely a table of about ${table.rows} rows and ${table.columns} columns`);
  } else if (lines.length >= 12 && words.length / lines.length >= 6) {
    signals.push("it is mostly running text (a scanned or photographed page)");
  } else if (lines.length <= 12 && words.length <= 60) {
    signals.push("it has only scattered labels, as a diagram, form or slide would");
  }
  if (signals.length) parts.push(`Layout suggests ${signals.join(" ")}.`);
  if (table.rows >= 3 && signals[0] && !signals[0].includes("table")) {
    parts.push(`Some lines are aligned in about ${table.columns} columns, as in a table.`);
  }
  if (numeric.length > 0) {
    parts.push(`${Math.round((numeric.length / words.length) * 100)}% of the recognised words are numbers.`);
  }
  // The title: the first line in the top fifth of the image with at least two words.
  const top = lines.find((l) => l.words.length >= 2 && (!height || l.bbox.y1 < height * 0.2));
  if (top) parts.push(`Text at the top: ${quote(top.text)}.`);
  parts.push(`OCR confidence ${Math.round(ocr.confidence)}/100.`);
  return parts.join(" ");
}
