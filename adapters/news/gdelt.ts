/**
 * GDELT 2.x sources: the DOC 2.0 API's article list (JSON), Global Knowledge Graph 2.1
 * rows (tab-separated, 27 columns) and Mentions rows (tab-separated exports, or CSV with a
 * header as in gdeltPyR's sample). Mentions carry no headline, so one is read from the
 * URL's slug; rows whose URL has no readable slug are skipped.
 */
import type { RawNewsItem } from "../../domain/news/ports.ts";
import { collapse, decodeEntities, toIsoOffset } from "../../domain/news/text.ts";
import { parseCsvObjects } from "./csv.ts";
import { hostOf } from "./feed-entry.ts";
import { fipsToIso } from "./gdelt-fips.ts";

/** Column order of GKG 2.1 exports (shared/data/news/gdelt/gdelt2_gkg_schema.csv). */
const GKG_COLUMNS = [
  "gkgrecordid",
  "date",
  "sourcecollectionidentifier",
  "sourcecommonname",
  "documentidentifier",
  "counts",
  "v2counts",
  "themes",
  "v2themes",
  "locations",
  "v2locations",
  "persons",
  "v2persons",
  "organizations",
  "v2organizations",
  "v2tone",
  "dates",
  "gcam",
  "sharingimage",
  "relatedimages",
  "socialimageembeds",
  "socialvideoembeds",
  "quotations",
  "allnames",
  "amounts",
  "translationinfo",
  "extras",
] as const;

/** Column order of Mentions exports (GDELT 2.0 codebook). */
const MENTION_COLUMNS = [
  "globaleventid",
  "eventtimedate",
  "mentiontimedate",
  "mentiontype",
  "mentionsourcename",
  "mentionidentifier",
  "sentenceid",
  "actor1charoffset",
  "actor2charoffset",
  "actioncharoffset",
  "inrawtext",
  "confidence",
  "mentiondoclen",
  "mentiondoctone",
  "mentiondoctranslationinfo",
  "extras",
] as const;

/** "20170701234500" → ISO; GDELT timestamps are UTC. */
export function gdeltTime(v: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})T?(\d{2})(\d{2})(\d{2})Z?$/.exec(v.trim());
  return m ? toIsoOffset(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) : null;
}

/** A headline from a URL slug: ".../i-gabinete-ministerial-binacional-peru-chile" → "I gabinete ...". */
export function titleFromUrl(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  let best = "";
  for (const seg of path.split("/")) {
    let s: string;
    try {
      s = decodeURIComponent(seg);
    } catch {
      s = seg;
    }
    s = s
      .replace(/\.(s?html?|php|aspx?|cms|awp)$/i, "")
      .replace(/^[\d.]+[-_]/, "")
      .replace(/[-_][\d.]+(-ntvo|-\d+)?$/i, "");
    const words = s.split(/[-_+]+/).filter((w) => /\p{L}/u.test(w));
    // Trailing ids ("idUSKBN19M", "a2386a94") are not words of the headline.
    while (words.length > 0 && /\d/.test(words.at(-1) ?? "")) words.pop();
    const real = words.filter((w) => /\p{L}{2,}/u.test(w)).length;
    if (real >= 3 && words.join(" ").length > best.length) best = words.join(" ");
  }
  if (!best) return null;
  return best.charAt(0).toUpperCase() + best.slice(1);
}

function num(v: string | undefined): number | undefined {
  const n = Number(v);
  return v !== undefined && v.trim() !== "" && Number.isFinite(n) ? n : undefined;
}

function mentionItem(r: Record<string, string>): RawNewsItem | null {
  // Type 1 is WEB; the others (citations, JSTOR, non-text) have no article URL.
  if ((r.mentiontype ?? "1") !== "1") return null;
  const url = r.mentionidentifier ?? "";
  if (!/^https?:\/\//.test(url)) return null;
  const title = titleFromUrl(url);
  if (!title) return null;
  const tone = num(r.mentiondoctone);
  return {
    source_type: "gdelt",
    source_name: r.mentionsourcename || hostOf(url),
    url,
    title,
    body: "",
    published_at: gdeltTime(r.mentiontimedate ?? "") ?? gdeltTime(r.eventtimedate ?? ""),
    hints: tone === undefined ? {} : { tone },
  };
}

function gkgItem(r: Record<string, string>): RawNewsItem | null {
  const url = r.documentidentifier ?? "";
  if (!/^https?:\/\//.test(url)) return null;
  const pageTitle = /<PAGE_TITLE>([\s\S]*?)<\/PAGE_TITLE>/.exec(r.extras ?? "")?.[1];
  const title = pageTitle ? collapse(decodeEntities(pageTitle)) : titleFromUrl(url);
  if (!title) return null;
  // V1 locations: "type#name#FIPS country#ADM1#lat#long#featureid;..."
  const countries = new Set<string>();
  for (const loc of (r.locations ?? "").split(";")) {
    const iso = fipsToIso(loc.split("#")[2] ?? "");
    if (iso) countries.add(iso);
  }
  const tone = num((r.v2tone ?? "").split(",")[0]);
  const themes = (r.themes ?? "").split(";").filter(Boolean);
  return {
    source_type: "gdelt",
    source_name: r.sourcecommonname || hostOf(url),
    url,
    title,
    body: "",
    published_at: gdeltTime(r.date ?? ""),
    hints: {
      ...(countries.size ? { countries: [...countries] } : {}),
      ...(themes.length ? { categories: themes } : {}),
      ...(tone === undefined ? {} : { tone }),
    },
  };
}

function docItem(a: Record<string, unknown>): RawNewsItem | null {
  const url = typeof a.url === "string" ? a.url : "";
  const title = typeof a.title === "string" ? collapse(decodeEntities(a.title)) : "";
  if (!/^https?:\/\//.test(url) || !title) return null;
  return {
    source_type: "gdelt",
    source_name: typeof a.domain === "string" && a.domain ? a.domain : hostOf(url),
    url,
    title,
    body: "",
    published_at: typeof a.seendate === "string" ? gdeltTime(a.seendate) : null,
  };
}

function keep(items: (RawNewsItem | null)[]): RawNewsItem[] {
  return items.filter((i): i is RawNewsItem => i !== null);
}

/** DOC 2.0 API, mode=ArtList&format=json: {articles: [{url, title, seendate, domain, ...}]}. */
export function parseGdeltDoc(doc: unknown): RawNewsItem[] {
  const articles = (doc as { articles?: unknown } | null)?.articles;
  if (!Array.isArray(articles)) return [];
  return keep(
    articles.filter((a) => typeof a === "object" && a !== null).map((a) => docItem(a as Record<string, unknown>)),
  );
}

/** GKG or Mentions rows; the format is told by the header (CSV) or the column count (TSV). */
export function parseGdeltRows(text: string): RawNewsItem[] {
  const eol = text.indexOf("\n");
  const firstLine = (eol === -1 ? text : text.slice(0, eol)).toLowerCase();
  if (firstLine.includes("mentionidentifier")) return keep(parseCsvObjects(text).map(mentionItem));
  if (firstLine.includes("documentidentifier")) return keep(parseCsvObjects(text).map(gkgItem));
  // Headerless exports are tab-separated and never quote, so a plain split is exact.
  const rows = text
    .split(/\r?\n/)
    .filter(Boolean)
    .map((l) => l.split("\t"));
  const width = rows[0]?.length ?? 0;
  const columns: readonly string[] | null =
    width >= GKG_COLUMNS.length ? GKG_COLUMNS : width >= MENTION_COLUMNS.length - 1 ? MENTION_COLUMNS : null;
  if (!columns) return [];
  const objects = rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? ""])));
  return keep(objects.map(columns === GKG_COLUMNS ? gkgItem : mentionItem));
}

/** GKG/Mentions CSV with a header, or headerless TSV (used to sniff a body's format). */
export function looksLikeGdeltRows(text: string): boolean {
  const head = text.slice(0, 2000);
  return (
    /mentionidentifier|documentidentifier/i.test(head) || /^\d+\t\d{14}\t/.test(head) || /^\d{14}-\d+\t/.test(head)
  );
}
