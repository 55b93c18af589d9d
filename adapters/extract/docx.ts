/**
 * DOCX text straight from the WordprocessingML (a budgeted ZIP reader, zip.ts, + fast-xml-parser): body paragraphs
 * and tables in order (a table row reads "cell | cell | cell"; nested tables flatten into
 * their cell), text boxes, headers and footers (once each, however many sections repeat
 * them), footnotes and endnotes. Deleted revisions and field codes are not text.
 */
import type { ExtractedDocument, TextBlock } from "../../domain/documents/types.ts";
import { attr, childrenOf, find, parseXml, partReader, relationships, tagOf, textOf, type XNode } from "./xml.ts";

/** Text of a run container: w:t, tabs and breaks; skips field codes and deletions. */
function inlineText(nodes: readonly XNode[]): string {
  let out = "";
  for (const n of nodes) {
    const tag = tagOf(n);
    if (tag === "#text") continue;
    switch (tag) {
      case "w:t":
        out += childrenOf(n).map(textOf).join("");
        break;
      case "w:tab":
      case "w:ptab":
        out += "\t";
        break;
      case "w:br":
      case "w:cr":
        out += "\n";
        break;
      case "w:noBreakHyphen":
        out += "-";
        break;
      case "w:instrText":
      case "w:delText":
      case "w:del":
      case "w:pPr":
      case "w:rPr":
      case "w:txbxContent": // read as its own blocks
        break;
      default:
        out += inlineText(childrenOf(n));
    }
  }
  return out;
}

function clean(s: string): string {
  return s
    .replace(/[ \t\u00a0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .trim();
}

function paragraphKind(p: XNode): TextBlock["kind"] {
  const pPr = childrenOf(p).find((c) => tagOf(c) === "w:pPr");
  if (!pPr) return "paragraph";
  const style = find(childrenOf(pPr), "w:pStyle");
  const id = style ? (attr(style, "w:val") ?? "") : "";
  if (/^(heading|title|subtitle)/i.test(id)) return "heading";
  if (find(childrenOf(pPr), "w:numPr") || /list/i.test(id)) return "list";
  return "paragraph";
}

function cellText(tc: XNode): string {
  // A vertically merged cell's continuation shows nothing in Word, whatever it holds.
  const tcPr = childrenOf(tc).find((c) => tagOf(c) === "w:tcPr");
  const vMerge = tcPr ? childrenOf(tcPr).find((c) => tagOf(c) === "w:vMerge") : undefined;
  if (vMerge && (attr(vMerge, "w:val") ?? "continue") === "continue") return "";
  const parts: string[] = [];
  for (const c of childrenOf(tc)) {
    const tag = tagOf(c);
    if (tag === "w:p") parts.push(clean(inlineText(childrenOf(c))));
    else if (tag === "w:tbl") parts.push(tableRows(c).join("; "));
    else if (tag === "w:sdt") parts.push(cellText(find(childrenOf(c), "w:sdtContent") ?? c));
  }
  return parts.filter(Boolean).join(" ");
}

function tableRows(tbl: XNode): string[] {
  const rows: string[] = [];
  for (const tr of childrenOf(tbl)) {
    if (tagOf(tr) !== "w:tr") continue;
    const cells = childrenOf(tr)
      .flatMap((c) => (tagOf(c) === "w:sdt" ? childrenOf(find(childrenOf(c), "w:sdtContent") ?? c) : [c]))
      .filter((c) => tagOf(c) === "w:tc")
      .map(cellText);
    // A vertically merged cell repeats nothing in the XML; empty cells keep their column.
    if (cells.some((c) => c.length > 0)) rows.push(cells.join(" | "));
  }
  return rows;
}

/** Blocks of a story (body, header, footer, note) in document order. */
function storyBlocks(nodes: readonly XNode[], out: TextBlock[]): TextBlock[] {
  for (const n of nodes) {
    const tag = tagOf(n);
    if (tag === "w:p") {
      const text = clean(inlineText(childrenOf(n)));
      if (text) {
        const kind = paragraphKind(n);
        out.push({ text: kind === "list" ? `• ${text}` : text, kind });
      }
      // Text boxes anchored in the paragraph follow it.
      for (const box of findTextBoxes(childrenOf(n))) storyBlocks(childrenOf(box), out);
    } else if (tag === "w:tbl") {
      const rows = tableRows(n);
      if (rows.length) out.push({ text: rows.join("\n"), kind: "table" });
    } else if (tag && tag !== "#text" && tag !== "w:sectPr") {
      storyBlocks(childrenOf(n), out);
    }
  }
  return out;
}

function findTextBoxes(nodes: readonly XNode[], out: XNode[] = []): XNode[] {
  for (const n of nodes) {
    const tag = tagOf(n);
    if (tag === "w:txbxContent") out.push(n);
    // A VML fallback repeats the DrawingML text box: read only the first choice.
    else if (tag === "mc:Fallback") continue;
    else findTextBoxes(childrenOf(n), out);
  }
  return out;
}

export async function extractDocx(bytes: Uint8Array): Promise<ExtractedDocument> {
  const read = partReader(bytes);
  const main = await read("word/document.xml");
  if (!main) throw new Error("word/document.xml is missing");
  const rels = relationships(await read("word/_rels/document.xml.rels"), "word");

  const body = find(parseXml(main), "w:body");
  const blocks = body ? storyBlocks(childrenOf(body), []) : [];
  const seen = new Set(blocks.map((b) => b.text));
  const headers: TextBlock[] = [];
  const footers: TextBlock[] = [];
  const notes: string[] = [];
  for (const { target, type } of [...rels.values()].sort((a, b) => a.target.localeCompare(b.target))) {
    const kind = type.endsWith("/header") ? headers : type.endsWith("/footer") ? footers : null;
    if (!kind) continue;
    const xml = await read(target);
    if (!xml) continue;
    for (const b of storyBlocks(parseXml(xml), [])) {
      if (!seen.has(b.text)) {
        seen.add(b.text);
        kind.push(b);
      }
    }
  }
  const noteBlocks: TextBlock[] = [];
  for (const [path, tag] of [
    ["word/footnotes.xml", "w:footnote"],
    ["word/endnotes.xml", "w:endnote"],
  ] as const) {
    const xml = await read(path);
    if (!xml) continue;
    const root = parseXml(xml);
    const container = find(root, tag === "w:footnote" ? "w:footnotes" : "w:endnotes");
    for (const note of childrenOf(container ?? {})) {
      if (tagOf(note) !== tag || attr(note, "w:type")) continue; // separators
      noteBlocks.push(...storyBlocks(childrenOf(note), []));
    }
  }
  if (headers.length || footers.length) notes.push("page headers and footers included once each");
  return {
    format: "docx",
    blocks: [...headers, ...blocks, ...noteBlocks, ...footers],
    pages: 1,
    notes,
  };
}
