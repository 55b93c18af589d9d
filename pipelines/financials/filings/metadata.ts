/**
 * What a stand-alone 8-K HTML file says about itself. Inline-XBRL cover pages tag the
 * registrant (dei:EntityCentralIndexKey, dei:EntityRegistrantName, dei:TradingSymbol,
 * dei:DocumentType, dei:DocumentPeriodEndDate); older files only say "Date of Report"
 * in prose. Also: the document label of an exhibit, and SEC archive URLs.
 */

export interface HtmlCover {
  cik: string | null;
  company_name: string | null;
  ticker: string | null;
  form_type: string | null;
  date_of_report: string | null;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DATE_RE =
  /\b(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?\s+(\d{1,2}),?\s+(\d{4})\b/gi;

function decode(s: string): string {
  return s
    .replace(/<[^>]+>/g, " ")
    .replace(/&#160;|&nbsp;/gi, " ")
    .replace(/&amp;/gi, "&")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/\s+/g, " ")
    .trim();
}

function dei(html: string, name: string): string | null {
  const m = new RegExp(`<ix:nonNumeric[^>]*name="dei:${name}"[^>]*>([\\s\\S]*?)</ix:nonNumeric>`, "i").exec(html);
  return m?.[1] ? decode(m[1]) || null : null;
}

/** "November 22, 2024" -> "2024-11-22"; null when not a real date. */
export function parseLongDate(text: string): string | null {
  DATE_RE.lastIndex = 0;
  const m = DATE_RE.exec(text);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const month = MONTHS.indexOf(m[1].slice(0, 3).toLowerCase());
  const d = new Date(Date.UTC(Number(m[3]), month, Number(m[2])));
  if (month < 0 || d.getUTCDate() !== Number(m[2])) return null;
  return d.toISOString().slice(0, 10);
}

/** The date printed nearest the "Date of Report" caption (before or after it). */
function dateOfReport(plain: string): string | null {
  const at = plain.search(/date of report/i);
  if (at < 0) return null;
  const window = plain.slice(Math.max(0, at - 150), at + 250);
  let best: { iso: string; distance: number } | null = null;
  for (const m of window.matchAll(DATE_RE)) {
    const iso = parseLongDate(m[0]);
    const distance = Math.abs((m.index ?? 0) - Math.min(150, at));
    if (iso && (!best || distance < best.distance)) best = { iso, distance };
  }
  return best?.iso ?? null;
}

/** Older cover pages: the registrant's name printed just above "(Exact name of registrant...)". */
function captionedName(plain: string): string | null {
  const m = /\)\s*([^()]{2,120}?)\s*\(Exact name of registrant/i.exec(plain.slice(0, 20_000));
  DATE_RE.lastIndex = 0;
  const name = m?.[1]?.replace(DATE_RE, "").trim();
  return name || null;
}

export function readHtmlCover(html: string): HtmlCover {
  const cikTag =
    dei(html, "EntityCentralIndexKey") ??
    /<xbrli:identifier[^>]*scheme="http:\/\/www\.sec\.gov\/CIK"[^>]*>\s*(\d{1,10})\s*</i.exec(html)?.[1] ??
    null;
  const period = dei(html, "DocumentPeriodEndDate");
  const form = dei(html, "DocumentType");
  const plain = decode(html.slice(0, 200_000));
  return {
    cik: cikTag && /^\d{1,10}$/.test(cikTag) ? cikTag.padStart(10, "0") : null,
    company_name: dei(html, "EntityRegistrantName") ?? captionedName(plain),
    ticker: dei(html, "TradingSymbol"),
    form_type: form ?? (/\bFORM\s+8-K\b/i.test(plain.slice(0, 5000)) ? "8-K" : null),
    date_of_report: (period ? parseLongDate(period) : null) ?? dateOfReport(plain),
  };
}

/**
 * A human label for a filing document (spec 2.18 doc_type_label). The exhibit's own
 * description decides first; otherwise its opening lines, where a press release that
 * merely mentions a "webcast presentation" must not pass for a deck.
 */
export function docTypeLabel(type: string, description: string | null, markdown: string): string {
  if (/^8-K/i.test(type)) return "Current report";
  if (!/^EX-99/i.test(type)) return "Exhibit";
  const deck = /\b(investor presentation|earnings presentation|presentation slides|slides|investor day)\b/i;
  const release = /\b(press release|news release|announces?|reports?)\b/i;
  const desc = description ?? "";
  if (deck.test(desc) || /\bpresentation\b/i.test(desc)) return "Investor presentation";
  if (release.test(desc)) return "Press release";
  const head = markdown.slice(0, 1500);
  if (deck.test(head)) return "Investor presentation";
  if (release.test(head)) return "Press release";
  return "Exhibit 99";
}

/**
 * EDGAR archive URL of a document, or of the filing index when the file name is not
 * known; null without a CIK (the path needs it).
 */
export function secUrl(cik: string | null, accession: string | null, filename: string | null): string | null {
  if (!cik || !accession) return null;
  const base = `https://www.sec.gov/Archives/edgar/data/${Number(cik)}/${accession.replaceAll("-", "")}`;
  return filename ? `${base}/${filename}` : `${base}/${accession}-index.htm`;
}
