/**
 * Ordered XML trees (fast-xml-parser's preserveOrder mode) and the few walks the OOXML and
 * SVG extractors need. Document order matters: a paragraph's runs, a slide's text frames and
 * an SVG's text elements are read in the order they were written.
 */
import { XMLParser } from "fast-xml-parser";
import { openPackage } from "./zip.ts";

/** One element: `{ tag: children, ":@": attributes }`, or a text node `{ "#text": value }`. */
export type XNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Office files and SVGs carry no DOCTYPE entities worth expanding; refuse entity bombs.
  allowBooleanAttributes: true,
});

export function parseXml(xml: string): XNode[] {
  return parser.parse(xml) as XNode[];
}

export function tagOf(node: XNode): string | null {
  for (const k of Object.keys(node)) if (k !== ":@") return k;
  return null;
}

export function childrenOf(node: XNode): XNode[] {
  const tag = tagOf(node);
  if (!tag || tag === "#text") return [];
  const c = node[tag];
  return Array.isArray(c) ? (c as XNode[]) : [];
}

export function attr(node: XNode, name: string): string | undefined {
  const a = node[":@"] as Record<string, unknown> | undefined;
  const v = a?.[name];
  return v === undefined ? undefined : String(v);
}

export function textOf(node: XNode): string {
  const t = node["#text"];
  return t === undefined ? "" : String(t);
}

/** Local name without a namespace prefix ("w:p" -> "p"). */
export function localName(tag: string): string {
  const i = tag.indexOf(":");
  return i < 0 ? tag : tag.slice(i + 1);
}

/** Depth-first search for the first element with this tag. */
export function find(nodes: readonly XNode[], tag: string): XNode | undefined {
  for (const n of nodes) {
    if (tagOf(n) === tag) return n;
    const hit = find(childrenOf(n), tag);
    if (hit) return hit;
  }
  return undefined;
}

/** Every element with this tag, in document order (not descending into matches). */
export function findAll(nodes: readonly XNode[], tag: string, out: XNode[] = []): XNode[] {
  for (const n of nodes) {
    if (tagOf(n) === tag) out.push(n);
    else findAll(childrenOf(n), tag, out);
  }
  return out;
}

/** Relationship id -> target path, resolved against the part's folder. */
export function relationships(
  relsXml: string | undefined,
  baseDir: string,
): Map<string, { target: string; type: string }> {
  const map = new Map<string, { target: string; type: string }>();
  if (!relsXml) return map;
  for (const rel of findAll(parseXml(relsXml), "Relationship")) {
    const id = attr(rel, "Id");
    const target = attr(rel, "Target");
    if (!id || !target || attr(rel, "TargetMode") === "External") continue;
    map.set(id, { target: resolvePart(baseDir, target), type: attr(rel, "Type") ?? "" });
  }
  return map;
}

function resolvePart(baseDir: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts = baseDir ? baseDir.split("/") : [];
  for (const seg of target.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== "." && seg !== "") parts.push(seg);
  }
  return parts.join("/");
}

/** A reader of package parts under the ZIP budget (zip.ts): a zip bomb is refused, not inflated. */
export function partReader(bytes: Uint8Array): (path: string) => Promise<string | undefined> {
  const pkg = openPackage(bytes);
  return async (path) => pkg.text(path);
}
