/**
 * Paragraphs from a PDF page's positioned text runs (spec 4.6: "paragraph structure
 * preserved"). A PDF only knows glyph runs at coordinates; lines are runs on one baseline,
 * and a paragraph ends where the spacing between lines grows, the text jumps up (a new
 * column or region), the font size changes (a heading), or a short line ends a sentence.
 */

/** One text run as PDF.js reports it: `x`,`y` baseline origin in points (y grows upwards). */
export interface PdfRun {
  str: string;
  x: number;
  y: number;
  width: number;
  /** Font size in points. */
  size: number;
  hasEOL?: boolean;
}

interface Line {
  text: string;
  x: number;
  right: number;
  y: number;
  size: number;
}

function toLines(runs: readonly PdfRun[]): Line[] {
  const lines: Line[] = [];
  let cur: Line | null = null;
  let forceBreak = false;
  for (const r of runs) {
    if (!r.str) {
      if (r.hasEOL) forceBreak = true;
      continue;
    }
    const size = r.size > 0 ? r.size : 10;
    const sameLine = cur !== null && !forceBreak && Math.abs(r.y - cur.y) < Math.max(cur.size, size) * 0.5;
    if (cur && sameLine) {
      const gap = r.x - cur.right;
      const needsSpace = gap > size * 0.15 && !cur.text.endsWith(" ") && !r.str.startsWith(" ");
      cur.text += (needsSpace ? " " : "") + r.str;
      cur.right = Math.max(cur.right, r.x + r.width);
      cur.size = Math.max(cur.size, size);
    } else {
      if (cur) lines.push(cur);
      cur = { text: r.str, x: r.x, right: r.x + r.width, y: r.y, size };
    }
    forceBreak = !!r.hasEOL;
  }
  if (cur) lines.push(cur);
  return lines.map((l) => ({ ...l, text: l.text.replace(/\s+/g, " ").trim() })).filter((l) => l.text.length > 0);
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Joins one paragraph's lines, undoing end-of-line hyphenation ("infor-" + "mation"). */
function joinLines(lines: readonly Line[]): string {
  let out = "";
  for (const l of lines) {
    if (!out) out = l.text;
    else if (/[a-z]-$/.test(out) && /^[a-z]/.test(l.text)) out = out.slice(0, -1) + l.text;
    else out += ` ${l.text}`;
  }
  return out;
}

/** Paragraph texts of one page, in content order. */
export function pdfParagraphs(runs: readonly PdfRun[]): string[] {
  const lines = toLines(runs);
  if (lines.length === 0) return [];
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const d = (lines[i - 1]!.y - lines[i]!.y) / lines[i]!.size;
    if (d >= 0.8) gaps.push(d); // smaller steps are sub/superscripts or cells on one row
  }
  // Line pitch within a paragraph relative to font size (≈1.2 for body text): a low
  // percentile, because in short documents most gaps may be paragraph breaks.
  gaps.sort((a, b) => a - b);
  const pitch = Math.min(Math.max(gaps[Math.floor(gaps.length * 0.1)] ?? 1.2, 1), 2);
  const widths = lines.map((l) => l.right - l.x);
  const fullWidth = median(widths.filter((w) => w > 0)) || 1;

  const paras: string[] = [];
  let cur: Line[] = [lines[0]!];
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1]!;
    const line = lines[i]!;
    const drop = (prev.y - line.y) / Math.max(line.size, 1);
    const sizeChange = Math.abs(line.size - prev.size) > Math.max(prev.size, line.size) * 0.15;
    const widerSpacing = drop > pitch * 1.45;
    const jumpedUp = drop < -0.5 || line.x > prev.right + prev.size;
    const shortEnd = prev.right - prev.x < fullWidth * 0.7 && /[.:!?;"”]$/.test(prev.text);
    if (widerSpacing || jumpedUp || sizeChange || shortEnd) {
      paras.push(joinLines(cur));
      cur = [];
    }
    cur.push(line);
  }
  if (cur.length) paras.push(joinLines(cur));
  return paras.filter((p) => p.trim().length > 0);
}
