/**
 * SVG text (spec 4.6): every `<text>` element, with its `<tspan>`/`<textPath>` content, in
 * document order, one line per text element. An SVG with no text (outlined lettering, a pure
 * drawing) is rasterised with resvg so the image path (OCR + description) can read it.
 */
import { Resvg } from "@resvg/resvg-js";
import { childrenOf, localName, parseXml, tagOf, textOf, type XNode } from "./xml.ts";

function textContent(nodes: readonly XNode[]): string {
  let out = "";
  for (const n of nodes) {
    const tag = tagOf(n);
    if (tag === "#text") out += textOf(n);
    else if (tag) {
      const name = localName(tag);
      if (name === "title" || name === "desc" || name === "metadata") continue;
      // A tspan that starts a new line (own x/y/dy) is a word boundary at least.
      const a = n[":@"] as Record<string, unknown> | undefined;
      const positioned = name === "tspan" && a && ("x" in a || "y" in a || "dy" in a);
      out += (positioned ? " " : "") + textContent(childrenOf(n));
    }
  }
  return out;
}

function collect(nodes: readonly XNode[], out: string[]): void {
  for (const n of nodes) {
    const tag = tagOf(n);
    if (!tag || tag === "#text") continue;
    const name = localName(tag);
    if (name === "style" || name === "script" || name === "metadata") continue;
    if (name === "text") {
      const t = textContent(childrenOf(n)).replace(/\s+/g, " ").trim();
      if (t) out.push(t);
    } else collect(childrenOf(n), out);
  }
}

/** The SVG's text lines in document order (empty when it has none). */
export function svgTextLines(bytes: Uint8Array): string[] {
  const xml = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  const lines: string[] = [];
  collect(parseXml(xml), lines);
  return lines;
}

/** Pixels a rasterised SVG may have: a huge declared canvas is scaled down, never rendered whole. */
export const MAX_SVG_PIXELS = 25_000_000;

/** A PNG of the SVG, at least 1000 px on its longer side (small icons are enlarged for OCR). */
export function rasteriseSvg(bytes: Uint8Array): Buffer {
  const probe = new Resvg(Buffer.from(bytes));
  const longer = Math.max(probe.width, probe.height) || 1;
  const area = Math.max(1, probe.width * probe.height);
  const scale = Math.min(4, Math.max(1, 1000 / longer), Math.sqrt(MAX_SVG_PIXELS / area));
  const resvg = new Resvg(Buffer.from(bytes), {
    fitTo: { mode: "zoom", value: scale },
    background: "white",
    font: { loadSystemFonts: false },
  });
  return resvg.render().asPng();
}
