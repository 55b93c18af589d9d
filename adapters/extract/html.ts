/**
 * HTML text with node-html-parser: block elements become blocks, headings are marked, list
 * items get a bullet, table rows read "cell | cell" (empty spacer cells, common in SEC
 * filings, are dropped). Scripts, styles, templates and `display:none` content (such as an
 * inline-XBRL header) are not text a reader sees, so they are skipped.
 */
import { type HTMLElement, type Node, NodeType, parse } from "node-html-parser";
import type { ExtractedDocument, TextBlock } from "../../domain/documents/types.ts";

const SKIP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "svg",
  "iframe",
  "object",
  "button",
  "select",
]);
const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "center",
  "dd",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "header",
  "hr",
  "html",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "ul",
]);

function hidden(el: HTMLElement): boolean {
  const style = el.getAttribute("style");
  return (
    el.hasAttribute("hidden") ||
    (style !== undefined && /display\s*:\s*none/i.test(style)) ||
    el.getAttribute("aria-hidden") === "true"
  );
}

function squash(s: string): string {
  return s.replace(/[\s\u00a0\u200b]+/g, " ").trim();
}

/** Inline text of a subtree (used for table cells and headings). */
function inline(node: Node): string {
  if (node.nodeType === NodeType.TEXT_NODE) return node.text;
  if (node.nodeType !== NodeType.ELEMENT_NODE) return "";
  const el = node as HTMLElement;
  const tag = el.rawTagName?.toLowerCase() ?? "";
  if (SKIP.has(tag) || hidden(el)) return "";
  if (tag === "br") return " ";
  const inner = el.childNodes.map(inline).join("");
  return BLOCK.has(tag) || tag === "li" || tag === "td" || tag === "th" ? ` ${inner} ` : inner;
}

function tableBlock(table: HTMLElement): string {
  const rows: string[] = [];
  for (const tr of table.querySelectorAll("tr")) {
    // Rows of a nested table are read with it, not again here.
    if (tr.closest("table") !== table) continue;
    const cells = tr.childNodes
      .filter((c): c is HTMLElement => c.nodeType === NodeType.ELEMENT_NODE)
      .filter((c) => ["td", "th"].includes(c.rawTagName?.toLowerCase() ?? ""))
      .map((c) => squash(inline(c)))
      .filter((c) => c.length > 0 && c !== "$" && c !== "%" && c !== ")");
    if (cells.length) rows.push(cells.join(" | "));
  }
  return rows.join("\n");
}

function walk(node: Node, out: TextBlock[], buf: string[]): void {
  const flush = () => {
    const text = squash(buf.join(""));
    buf.length = 0;
    if (text) out.push({ text, kind: "paragraph" });
  };
  if (node.nodeType === NodeType.TEXT_NODE) {
    buf.push(node.text);
    return;
  }
  if (node.nodeType !== NodeType.ELEMENT_NODE) return;
  const el = node as HTMLElement;
  const tag = el.rawTagName?.toLowerCase() ?? "";
  if (SKIP.has(tag) || hidden(el)) return;
  if (tag === "br") {
    buf.push("\n");
    return;
  }
  if (tag === "table") {
    flush();
    const text = tableBlock(el);
    if (text) out.push({ text, kind: "table" });
    return;
  }
  if (/^h[1-6]$/.test(tag) || tag === "li" || tag === "title") {
    flush();
    const text = squash(inline(el));
    if (text) out.push(tag === "li" ? { text: `• ${text}`, kind: "list" } : { text, kind: "heading" });
    return;
  }
  const block = BLOCK.has(tag);
  if (block) flush();
  for (const c of el.childNodes) walk(c, out, buf);
  if (block) flush();
}

export function extractHtml(bytes: Uint8Array): ExtractedDocument {
  // An XHTML prolog (common in inline-XBRL filings) is not text.
  const html = new TextDecoder("utf-8", { fatal: false }).decode(bytes).replace(/^\uFEFF?\s*<\?xml[^>]*\?>/i, "");
  const root = parse(html, { lowerCaseTagName: false, comment: false, blockTextElements: { pre: true } });
  const blocks: TextBlock[] = [];
  const buf: string[] = [];
  for (const c of root.childNodes) walk(c, blocks, buf);
  const rest = squash(buf.join(""));
  if (rest) blocks.push({ text: rest, kind: "paragraph" });
  return { format: "html", blocks, pages: 1, notes: [] };
}
