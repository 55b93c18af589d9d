/**
 * EDGAR HTML -> Markdown with node-html-markdown. EDGAR tables are laid out for print:
 * colspans, spacer columns, "$" and ")" in cells of their own, so converted as they are
 * they come out as ragged grids. Each table is first rebuilt as a plain grid (colspans
 * expanded, currency signs joined to their numbers, empty rows and columns dropped) and
 * layout tables of one row or column become paragraphs.
 */
import { NodeHtmlMarkdown } from "node-html-markdown";
import { type HTMLElement, parse } from "node-html-parser";

const converter = new NodeHtmlMarkdown({
  ignore: ["img"],
  maxConsecutiveNewlines: 2,
  useLinkReferenceDefinitions: false,
});

/** Parts of an EDGAR file that are not the document: SGML wrapper, iXBRL header, head. */
function stripNonContent(html: string): string {
  const text = /<TEXT>([\s\S]*?)(?:<\/TEXT>|$)/i.exec(html)?.[1] ?? html;
  return text
    .replace(/<\?xml[\s\S]*?\?>/gi, "")
    .replace(/<!DOCTYPE[^>]*>/gi, "")
    .replace(/<ix:header>[\s\S]*?<\/ix:header>/gi, "")
    .replace(/<head[\s>][\s\S]*?<\/head>/gi, "")
    .replace(/<(script|style)[\s>][\s\S]*?<\/\1>/gi, "");
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const cellText = (el: HTMLElement) => el.text.replace(/\s+/g, " ").trim();

const LEADING = new Set(["$", "(", "$(", "€", "£"]);
const TRAILING = new Set([")", "%", ")%", "%)"]);

/** The table as a grid of cell texts, colspans expanded, sign-only cells joined to their number. */
function toGrid(table: HTMLElement): string[][] {
  const rows: string[][] = [];
  for (const tr of table.querySelectorAll("tr")) {
    if (tr.closest("table") !== table) continue; // a nested table's row
    const row: string[] = [];
    for (const cell of tr.childNodes) {
      const el = cell as HTMLElement;
      if (el.tagName !== "TD" && el.tagName !== "TH") continue;
      const span = Math.min(Math.max(Number.parseInt(el.getAttribute("colspan") ?? "1", 10) || 1, 1), 50);
      row.push(cellText(el), ...Array<string>(span - 1).fill(""));
    }
    for (let i = 0; i < row.length; i++) {
      const t = row[i] ?? "";
      if (LEADING.has(t)) {
        const next = row.findIndex((v, j) => j > i && v !== "");
        if (next > 0) [row[next], row[i]] = [`${t}${row[next]}`, ""];
      } else if (TRAILING.has(t)) {
        const prev = row.findLastIndex((v, j) => j < i && v !== "");
        if (prev >= 0) [row[prev], row[i]] = [`${row[prev]}${t}`, ""];
      }
    }
    rows.push(row);
  }
  return rows;
}

/** Drops empty rows and columns, then folds neighbouring columns that never both hold text. */
function compact(grid: string[][]): string[][] {
  let rows = grid.filter((r) => r.some((c) => c !== ""));
  const width = Math.max(0, ...rows.map((r) => r.length));
  let cols = Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? ""));
  cols = cols.filter((col) => col.some((c) => c !== ""));
  // The first column holds the row labels: a header row never has one, so it would look
  // "disjoint" from the header text beside it; folding starts at the second column.
  for (let c = 1; c + 1 < cols.length; ) {
    const a = cols[c] ?? [];
    const b = cols[c + 1] ?? [];
    if (a.every((v, i) => v === "" || b[i] === "")) {
      cols[c] = a.map((v, i) => v || b[i] || "");
      cols.splice(c + 1, 1);
    } else c++;
  }
  rows = rows.map((_, i) => cols.map((col) => col[i] ?? ""));
  return rows;
}

function rebuild(table: HTMLElement): string {
  const rows = compact(toGrid(table));
  if (rows.length === 0) return "";
  // Layout, not data: one row (a bullet or check box beside its text) reads as one
  // paragraph, one column (a boxed block) as one paragraph per row.
  if (rows.length === 1) return `<p>${escapeHtml((rows[0] ?? []).filter(Boolean).join(" "))}</p>`;
  if ((rows[0]?.length ?? 0) <= 1) return rows.map((r) => `<p>${escapeHtml(r.join(" "))}</p>`).join("");
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`);
  return `<table>${tr.join("")}</table>`;
}

function tidy(md: string): string {
  return md
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n")
    .replace(/(?<=\S)\\\./g, ".")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

export function htmlToMarkdown(html: string): string {
  const root = parse(stripNonContent(html), { comment: false });
  // Innermost tables first, so an outer table sees its nested ones already flattened.
  for (const table of root.querySelectorAll("table").reverse()) table.replaceWith(rebuild(table));
  return tidy(converter.translate(root.toString()));
}

/**
 * Markdown -> plain prose for text analysis. Tables become one line per row, or are
 * dropped with `tables: "drop"` (financial statements are numbers, not prose).
 */
export function markdownToText(md: string, opts: { tables: "rows" | "drop" } = { tables: "rows" }): string {
  return md
    .split("\n")
    .filter((l) => !/^\s*\|?\s*:?-{3,}/.test(l))
    .filter((l) => opts.tables === "rows" || !l.trimStart().startsWith("|"))
    .map((l) => (l.trimStart().startsWith("|") ? `${l.replace(/\|/g, " ; ").trim()}.` : l))
    .join("\n")
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, "$1")
    .replace(/[*_#>`]+/g, "")
    .replace(/[ \t]+/g, " ");
}
