/**
 * Text clean-up shared by the news source parsers and the enrichment: feeds carry HTML
 * fragments, entities and irregular dates, and everything downstream wants plain text and
 * one timestamp format.
 */

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  hellip: "…",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  copy: "©",
  reg: "®",
  trade: "™",
};

/** Decodes HTML character references (named subset, decimal, hex); unknown names stay as they are. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** HTML fragment to one line of plain text: scripts/styles dropped, tags become spaces. */
export function htmlToText(html: string): string {
  const noBlocks = html.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, " ");
  // Feeds often double-escape ("&lt;b&gt;"), so decode once, strip tags, decode again.
  const once = decodeEntities(noBlocks).replace(/<[^>]*>/g, " ");
  return collapse(decodeEntities(once));
}

export function collapse(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** At most max characters, cut at a word boundary, with an ellipsis when cut. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

/**
 * Any date a feed writes (RFC 822 with zone names, ISO 8601, epoch seconds) as ISO 8601
 * UTC with an explicit "+00:00" offset (spec 2.11: "with UTC offset"); null when unreadable.
 */
export function toIsoOffset(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === "") return null;
  let ms: number;
  if (typeof value === "number") ms = value < 1e11 ? value * 1000 : value;
  else if (/^\d{9,10}(\.\d+)?$/.test(value.trim())) ms = Number(value) * 1000;
  else ms = Date.parse(value.trim());
  if (!Number.isFinite(ms)) return null;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00");
}
