/**
 * PPTX text (a budgeted ZIP reader, zip.ts, + fast-xml-parser): every slide in presentation order, and on each slide
 * every text frame, table and chart in the shape tree's order (groups included), then the
 * speaker notes. The slide number is the block's page. Charts read as their title, series
 * and data points, since the numbers are in the file.
 */
import type { ExtractedDocument, TextBlock } from "../../domain/documents/types.ts";
import {
  attr,
  childrenOf,
  find,
  findAll,
  parseXml,
  partReader,
  relationships,
  tagOf,
  textOf,
  type XNode,
} from "./xml.ts";

function runText(nodes: readonly XNode[]): string {
  let out = "";
  for (const n of nodes) {
    const tag = tagOf(n);
    if (tag === "a:t") out += childrenOf(n).map(textOf).join("");
    else if (tag === "a:br") out += "\n";
    else if (tag === "a:tab") out += "\t";
    else if (tag && tag !== "#text" && tag !== "a:rPr" && tag !== "a:pPr") out += runText(childrenOf(n));
  }
  return out;
}

function paragraphs(txBody: XNode): string[] {
  return findAll(childrenOf(txBody), "a:p")
    .map((p) =>
      runText(childrenOf(p))
        .replace(/[ \t\u00a0]+/g, " ")
        .trim(),
    )
    .filter(Boolean);
}

function tableText(tbl: XNode): string {
  return findAll(childrenOf(tbl), "a:tr")
    .map((tr) =>
      findAll(childrenOf(tr), "a:tc")
        .filter((tc) => attr(tc, "hMerge") !== "1" && attr(tc, "vMerge") !== "1")
        .map((tc) => paragraphs(tc).join(" "))
        .join(" | "),
    )
    .filter((row) => row.replace(/[|\s]/g, "").length > 0)
    .join("\n");
}

function chartText(xml: string): string {
  const root = parseXml(xml);
  const chart = find(root, "c:chart");
  if (!chart) return "";
  const title = find(childrenOf(chart), "c:title");
  const lines: string[] = [];
  const titleText = title ? paragraphs(title).join(" ") : "";
  lines.push(titleText ? `Chart: ${titleText}` : "Chart");
  const values = (node: XNode | undefined) =>
    node
      ? findAll(childrenOf(node), "c:pt").map((pt) =>
          childrenOf(find(childrenOf(pt), "c:v") ?? {})
            .map(textOf)
            .join(""),
        )
      : [];
  for (const ser of findAll(childrenOf(chart), "c:ser")) {
    const name = values(find(childrenOf(ser), "c:tx")).join(" ") || "Series";
    const cats = values(find(childrenOf(ser), "c:cat") ?? find(childrenOf(ser), "c:xVal"));
    const vals = values(find(childrenOf(ser), "c:val") ?? find(childrenOf(ser), "c:yVal"));
    const pairs = vals.map((v, i) => (cats[i] ? `${cats[i]}: ${v}` : v));
    lines.push(`${name} — ${pairs.join(", ")}`);
  }
  for (const ax of [...findAll(childrenOf(chart), "c:catAx"), ...findAll(childrenOf(chart), "c:valAx")]) {
    const t = find(childrenOf(ax), "c:title");
    const text = t ? paragraphs(t).join(" ") : "";
    if (text) lines.push(`Axis: ${text}`);
  }
  return lines.join("\n");
}

interface SlideContext {
  rels: Map<string, { target: string; type: string }>;
  read: (path: string) => Promise<string | undefined>;
}

async function shapeBlocks(nodes: readonly XNode[], ctx: SlideContext, page: number, out: TextBlock[]): Promise<void> {
  for (const n of nodes) {
    const tag = tagOf(n);
    if (tag === "p:sp") {
      const ph = find(childrenOf(n), "p:ph");
      const phType = ph ? attr(ph, "type") : undefined;
      if (phType === "sldNum" || phType === "dt") continue;
      const body = find(childrenOf(n), "p:txBody");
      const text = body ? paragraphs(body).join("\n") : "";
      if (text) out.push({ text, page, kind: phType === "title" || phType === "ctrTitle" ? "heading" : "frame" });
    } else if (tag === "p:graphicFrame") {
      const tbl = find(childrenOf(n), "a:tbl");
      if (tbl) {
        const text = tableText(tbl);
        if (text) out.push({ text, page, kind: "table" });
        continue;
      }
      const chartRef = find(childrenOf(n), "c:chart");
      const rid = chartRef ? attr(chartRef, "r:id") : undefined;
      const target = rid ? ctx.rels.get(rid)?.target : undefined;
      const xml = target ? await ctx.read(target) : undefined;
      const text = xml ? chartText(xml) : "";
      if (text) out.push({ text, page, kind: "table" });
    } else if (tag === "p:grpSp" || tag === "mc:AlternateContent" || tag === "mc:Choice") {
      await shapeBlocks(childrenOf(n), ctx, page, out);
    }
  }
}

export async function extractPptx(bytes: Uint8Array): Promise<ExtractedDocument> {
  const read = partReader(bytes);
  const pres = await read("ppt/presentation.xml");
  if (!pres) throw new Error("ppt/presentation.xml is missing");
  const presRels = relationships(await read("ppt/_rels/presentation.xml.rels"), "ppt");
  const slidePaths = findAll(parseXml(pres), "p:sldId")
    .map((s) => presRels.get(attr(s, "r:id") ?? "")?.target)
    .filter((t): t is string => !!t);

  const blocks: TextBlock[] = [];
  let withNotes = 0;
  for (const [i, path] of slidePaths.entries()) {
    const xml = await read(path);
    if (!xml) continue;
    const dir = path.slice(0, path.lastIndexOf("/"));
    const file = path.slice(path.lastIndexOf("/") + 1);
    const rels = relationships(await read(`${dir}/_rels/${file}.rels`), dir);
    const tree = find(parseXml(xml), "p:spTree");
    const page = i + 1;
    if (tree) await shapeBlocks(childrenOf(tree), { rels, read }, page, blocks);
    const notesPath = [...rels.values()].find((r) => r.type.endsWith("/notesSlide"))?.target;
    const notesXml = notesPath ? await read(notesPath) : undefined;
    if (notesXml) {
      const notes = findAll(parseXml(notesXml), "p:sp")
        .filter((sp) => attr(find(childrenOf(sp), "p:ph") ?? {}, "type") === "body")
        .flatMap((sp) => paragraphs(find(childrenOf(sp), "p:txBody") ?? sp));
      if (notes.length) {
        withNotes++;
        blocks.push({ text: `Speaker notes: ${notes.join("\n")}`, page, kind: "paragraph" });
      }
    }
  }
  return {
    format: "pptx",
    blocks,
    pages: slidePaths.length,
    notes: withNotes ? [`speaker notes included for ${withNotes} slide${withNotes > 1 ? "s" : ""}`] : [],
  };
}
