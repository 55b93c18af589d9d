/**
 * Plain text of a doc_ast for the search index: one block per textblock (paragraph,
 * heading, code block) in reading order, hard breaks as newlines, list items marked as lists.
 */
import type { TextBlock } from "../documents/types.ts";
import type { DocAst } from "./types.ts";

interface JsonNode {
  type?: unknown;
  text?: unknown;
  content?: unknown;
}

const TEXTBLOCKS = new Set(["paragraph", "heading", "codeBlock"]);

function inlineText(node: JsonNode): string {
  if (node.type === "text") return typeof node.text === "string" ? node.text : "";
  if (node.type === "hardBreak") return "\n";
  if (!Array.isArray(node.content)) return "";
  return (node.content as JsonNode[]).map(inlineText).join("");
}

export function docAstToTextBlocks(docAst: DocAst, title?: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  if (title?.trim()) blocks.push({ text: title.trim(), kind: "heading" });
  const walk = (node: JsonNode, inList: boolean) => {
    const type = typeof node.type === "string" ? node.type : "";
    if (TEXTBLOCKS.has(type)) {
      const text = inlineText(node).trim();
      if (text) blocks.push({ text, kind: type === "heading" ? "heading" : inList ? "list" : "paragraph" });
      return;
    }
    if (!Array.isArray(node.content)) return;
    const list = inList || type === "bulletList" || type === "orderedList" || type === "listItem";
    for (const child of node.content as JsonNode[]) walk(child, list);
  };
  walk(docAst as JsonNode, false);
  return blocks;
}
