/**
 * Real filings -> the company graph (domain/foundry/graph/model.ts). Each parser reads one
 * file's text and adds nodes and relationships to a GraphBuilder:
 * - EX-21 (HTML table, or an SGML 10-K carrying the exhibit): (subsidiary)-[:SUBSIDIARY_OF
 *   {jurisdiction}]->(registrant). Subsidiaries have no CIK: `sub:<parent cik>:<slug>`.
 * - 13F-HR (SGML submission or a bare information table XML): (fund)-[:HOLDS {shares,
 *   value, period}]->(issuer); an issuer is the company whose SEC title matches its name
 *   (company_tickers.json), else `cusip:<cusip>`. Rows of one issuer are summed.
 * - Forms 3/4/5 (ownership XML): (person)-[:INSIDER_OF]->(issuer), and one
 *   (person)-[:TRADED]->(issuer) per non-derivative transaction.
 * - DEF 14A proxy (HTML): directors from the "Director Since:" blocks, officers from the
 *   "named executive officers and their current positions" list.
 * - News feed items (JSON lists of RSS items): (article)-[:MENTIONS]->(company) for each
 *   ticker an item lists, and for each company already in the graph whose name (without
 *   legal-form words, 4+ letters) appears as words in its title.
 * - SEC profile data where present (submissions JSON, SGML headers): ticker, industry (SIC
 *   description) and sector (SIC division) -> IN_SECTOR / IN_INDUSTRY.
 */
import { XMLParser } from "fast-xml-parser";
import { parse as parseHtml } from "node-html-parser";
import type {
  GraphBatch,
  GraphNode,
  GraphPropValue,
  GraphRel,
  NodeLabel,
  RelType,
} from "../../../domain/foundry/graph/model.ts";
import { GRAPH_RELS } from "../../../domain/foundry/graph/model.ts";

/** A CIK as the house writes it everywhere (financials, sync tables): 10 digits, zero-padded ("320193" -> "0000320193"); null when not a CIK. */
export function normCik(s: unknown): string | null {
  const t = String(s ?? "").trim();
  if (!/^[0-9]{1,10}$/.test(t) || /^0+$/.test(t)) return null;
  return t.padStart(10, "0");
}

export function slug(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

const CORP_WORDS = new Set([
  "INC",
  "INCORPORATED",
  "CORP",
  "CORPORATION",
  "CO",
  "COMPANY",
  "LTD",
  "LIMITED",
  "PLC",
  "THE",
  "DEL",
  "NEW",
  "HOLDINGS",
  "LLC",
  "LP",
  "SA",
  "NV",
  "AG",
  "SE",
]);

/** A company name reduced for matching: upper case, no punctuation or legal-form words. */
export function nameKey(name: string): string {
  return name
    .toUpperCase()
    .replace(/&AMP;/g, "&")
    .replace(/[^A-Z0-9& ]+/g, " ")
    .split(/\s+/)
    .filter((w) => w && !CORP_WORDS.has(w))
    .join(" ");
}

/** SIC division of a SIC code (the sector). */
export function sicDivision(sic: number): string | null {
  if (!Number.isFinite(sic) || sic <= 0) return null;
  const d = Math.floor(sic / 100);
  if (d <= 9) return "Agriculture, Forestry and Fishing";
  if (d <= 14) return "Mining";
  if (d <= 17) return "Construction";
  if (d >= 20 && d <= 39) return "Manufacturing";
  if (d >= 40 && d <= 49) return "Transportation, Communications, Electric, Gas and Sanitary Services";
  if (d === 50 || d === 51) return "Wholesale Trade";
  if (d >= 52 && d <= 59) return "Retail Trade";
  if (d >= 60 && d <= 67) return "Finance, Insurance and Real Estate";
  if (d >= 70 && d <= 89) return "Services";
  if (d >= 91 && d <= 97) return "Public Administration";
  return "Nonclassifiable";
}

function titleCase(s: string): string {
  return s.toLowerCase().replace(/\b([a-z])/g, (m) => m.toUpperCase());
}

/** SEC reference data: titles and tickers by CIK, for names of issuers and registrants. */
export interface CompanyDirectory {
  byCik: Map<string, { name: string; ticker: string | null }>;
  byTicker: Map<string, string>;
  /** nameKey(title) -> CIK, only for names that identify one CIK. */
  byName: Map<string, string>;
  /** CIK -> SIC code and description (submissions JSON). */
  sic: Map<string, { code: number; description: string }>;
}

export function emptyDirectory(): CompanyDirectory {
  return { byCik: new Map(), byTicker: new Map(), byName: new Map(), sic: new Map() };
}

/** Adds company_tickers.json content (`{"0": {cik_str, ticker, title}, ...}`). */
export function addTickers(dir: CompanyDirectory, json: unknown): void {
  const ambiguous = new Set<string>();
  for (const e of Object.values(json as Record<string, { cik_str: unknown; ticker: unknown; title: unknown }>)) {
    const cik = normCik(e?.cik_str);
    if (!cik || typeof e.title !== "string") continue;
    const ticker = typeof e.ticker === "string" ? e.ticker : null;
    // The first ticker listed for a CIK is its main one.
    if (!dir.byCik.has(cik)) dir.byCik.set(cik, { name: e.title, ticker });
    if (ticker) dir.byTicker.set(ticker.toUpperCase(), cik);
    const k = nameKey(e.title);
    if (!k) continue;
    const had = dir.byName.get(k);
    if (had && had !== cik) ambiguous.add(k);
    else dir.byName.set(k, cik);
  }
  for (const k of ambiguous) dir.byName.delete(k);
}

/** Adds one submissions JSON (data.sec.gov/submissions/CIK##########.json). */
export function addSubmission(dir: CompanyDirectory, json: unknown): void {
  const j = json as { cik?: unknown; name?: unknown; tickers?: unknown; sic?: unknown; sicDescription?: unknown };
  const cik = normCik(j.cik);
  if (!cik) return;
  const ticker = Array.isArray(j.tickers) && typeof j.tickers[0] === "string" ? j.tickers[0] : null;
  if (typeof j.name === "string" && !dir.byCik.has(cik)) dir.byCik.set(cik, { name: j.name, ticker });
  const code = Number(j.sic);
  if (Number.isFinite(code) && code > 0 && typeof j.sicDescription === "string" && j.sicDescription) {
    dir.sic.set(cik, { code, description: j.sicDescription });
  }
}

/** Collects nodes and relationships; a node seen twice keeps the first non-null value of each property. */
export class GraphBuilder {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly rels = new Map<string, GraphRel>();

  constructor(readonly directory: CompanyDirectory) {}

  node(label: NodeLabel, key: string, props: Record<string, GraphPropValue>): string {
    const id = `${label}\u0000${key}`;
    const clean = Object.fromEntries(
      Object.entries(props).filter(([, v]) => v !== null && v !== undefined && v !== ""),
    );
    const had = this.nodes.get(id);
    if (!had) this.nodes.set(id, { label, key, props: clean });
    else for (const [k, v] of Object.entries(clean)) if (had.props[k] === undefined) had.props[k] = v;
    return key;
  }

  rel(type: RelType, from: string, to: string, props: Record<string, GraphPropValue>): void {
    const identity = GRAPH_RELS[type].identity.map((p) => String(props[p] ?? "")).join("\u0000");
    const id = `${type}\u0000${from}\u0000${to}\u0000${identity}`;
    const had = this.rels.get(id);
    if (!had) this.rels.set(id, { type, from, to, props: { ...props } });
    else if (type === "HOLDS") {
      // One issuer listed in several rows (share classes, managers): the holding is their sum.
      had.props.shares = Number(had.props.shares ?? 0) + Number(props.shares ?? 0);
      had.props.value = Number(had.props.value ?? 0) + Number(props.value ?? 0);
    }
  }

  /** A company node by CIK, with the directory's name, ticker, sector and industry where known. */
  company(cik: string, name: string | null, ticker?: string | null): string {
    const known = this.directory.byCik.get(cik);
    const sic = this.directory.sic.get(cik);
    this.node("Company", cik, {
      cik,
      name: known?.name ?? name,
      ticker: ticker ?? known?.ticker ?? null,
      sector: sic ? sicDivision(sic.code) : null,
      industry: sic ? sic.description : null,
    });
    return cik;
  }

  /** Company -> Sector / Industry for a SIC code (when the directory had none for it). */
  classify(cik: string, code: number, description: string): void {
    if (!this.directory.sic.has(cik)) this.directory.sic.set(cik, { code, description });
  }

  /** Companies with a CIK so far, and their names. */
  registrants(): { cik: string; name: string }[] {
    const out: { cik: string; name: string }[] = [];
    for (const n of this.nodes.values()) {
      if (n.label === "Company" && /^[0-9]+$/.test(n.key) && typeof n.props.name === "string") {
        out.push({ cik: n.key, name: n.props.name });
      }
    }
    return out;
  }

  build(): GraphBatch {
    // Sector and industry nodes from the companies' properties.
    for (const n of [...this.nodes.values()]) {
      if (n.label !== "Company") continue;
      const sic = this.directory.sic.get(n.key);
      if (sic) {
        n.props.sector ??= sicDivision(sic.code);
        n.props.industry ??= sic.description;
      }
      const sector = n.props.sector;
      const industry = n.props.industry;
      if (typeof sector === "string") {
        this.node("Sector", sector, { name: sector });
        this.rel("IN_SECTOR", n.key, sector, {});
      }
      if (typeof industry === "string") {
        this.node("Industry", industry, { name: industry });
        this.rel("IN_INDUSTRY", n.key, industry, {});
      }
    }
    return { nodes: [...this.nodes.values()], rels: [...this.rels.values()] };
  }
}

// ---------- SGML ----------

interface SgmlHeader {
  cik: string | null;
  name: string | null;
  sic: { code: number; description: string } | null;
  period: string | null;
}

/** The filer of an EDGAR submission: `.txt` (tab-indented header) or `.nc` (tagged header). */
export function sgmlHeader(text: string): SgmlHeader {
  const head = text.slice(0, 20_000);
  const cik = normCik(/CENTRAL INDEX KEY:\s*([0-9]+)/.exec(head)?.[1] ?? /<CIK>([0-9]+)/.exec(head)?.[1]);
  const name =
    /COMPANY CONFORMED NAME:\s*(.+)/.exec(head)?.[1]?.trim() ??
    /<CONFORMED-NAME>([^<\n]+)/.exec(head)?.[1]?.trim() ??
    null;
  const sicM = /STANDARD INDUSTRIAL CLASSIFICATION:\s*(.+?)\s*\[([0-9]+)\]/.exec(head);
  const sic = sicM?.[1] && sicM[2] ? { code: Number(sicM[2]), description: titleCase(sicM[1]) } : null;
  const p = /CONFORMED PERIOD OF REPORT:\s*([0-9]{8})/.exec(head)?.[1] ?? /<PERIOD>([0-9]{8})/.exec(head)?.[1];
  const period = p ? `${p.slice(0, 4)}-${p.slice(4, 6)}-${p.slice(6, 8)}` : null;
  return { cik, name, sic, period };
}

/** The documents of an SGML submission: type and text. */
export function sgmlDocuments(text: string): { type: string; text: string }[] {
  const out: { type: string; text: string }[] = [];
  const re = /<DOCUMENT>([\s\S]*?)<\/DOCUMENT>/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const body = m[1] ?? "";
    const type = /<TYPE>([^<\n]+)/.exec(body)?.[1]?.trim() ?? "";
    const t = /<TEXT>([\s\S]*?)(<\/TEXT>|$)/.exec(body)?.[1] ?? body;
    out.push({ type, text: t });
  }
  return out;
}

// ---------- HTML text ----------

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return code === 160 ? " " : String.fromCodePoint(code);
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/** HTML as lines of text: block ends and cells become line breaks / ` | `. */
export function htmlLines(html: string): string[] {
  const s = html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, "")
    .replace(/<(br|\/tr|\/p|\/div|\/h[1-6]|\/li)[^>]*>/gi, "\n")
    .replace(/<\/td>/gi, " | ")
    .replace(/<[^>]+>/g, "");
  return decodeEntities(s)
    .split("\n")
    .map((l) => l.replace(/\s+/g, " ").trim())
    .filter((l) => l !== "");
}

const cellText = (s: string): string => decodeEntities(s).replace(/\s+/g, " ").trim();

// ---------- EX-21 ----------

/** Subsidiaries of an EX-21 document: name and jurisdiction. */
export function parseEx21Html(html: string): { name: string; jurisdiction: string | null }[] {
  const root = parseHtml(html);
  const out: { name: string; jurisdiction: string | null }[] = [];
  const seen = new Set<string>();
  const push = (rawName: string, jurisdiction: string | null) => {
    // Footnote markers: "Al-Jubail Petrochemical Company (4) (5)", "Apple Inc.*".
    const name = rawName
      .replace(/(\s*\(\d+\))+\s*$/, "")
      .replace(/\*+$/, "")
      .trim();
    if (!name || /^[0-9.%\s]+$/.test(name) || name.length > 200) return;
    const k = slug(name);
    if (!k || seen.has(k)) return;
    seen.add(k);
    out.push({ name, jurisdiction });
  };
  const rows = root.querySelectorAll("tr");
  for (const tr of rows) {
    const cells = tr
      .querySelectorAll("td, th")
      .map((c) => cellText(c.text))
      .filter((c) => c !== "");
    if (cells.length < 2) continue;
    const name = cells[0] as string;
    // The last cell that is not a number (a percentage column may sit between).
    const jurisdiction = [...cells.slice(1)].reverse().find((c) => !/^[0-9.,%()\s]+$/.test(c)) ?? null;
    if (/^(name|subsidiar|company|entity)/i.test(name)) continue;
    if (jurisdiction && /jurisdiction|organized|incorporat|laws of|country of|percentage/i.test(jurisdiction)) continue;
    if (/^percentage/i.test(name)) continue;
    push(name, jurisdiction);
  }
  if (rows.length === 0 || out.length === 0) {
    // A list of paragraphs: "Tesla Energy Operations, Inc. (Delaware)".
    for (const p of root.querySelectorAll("p, li, div")) {
      if (p.querySelector("p, li, div")) continue;
      const m = /^(.+?)\s*\(([^()]+)\)\s*$/.exec(cellText(p.text));
      if (m?.[1] && m[2]) push(m[1], m[2].trim());
    }
  }
  return out;
}

/** The registrant's name from an EX-21 heading ("Subsidiaries of Apple Inc.*"). */
export function ex21Registrant(html: string): string | null {
  const lines = htmlLines(html);
  for (const [i, l] of lines.entries()) {
    const m = /^subsidiaries of(?: the registrant)?\s*(.*)$/i.exec(l);
    if (!m) continue;
    const rest = (m[1] || lines[i + 1] || "").replace(/\*+$/, "").trim();
    if (rest && !/^\(|registrant/i.test(rest)) return rest;
  }
  return null;
}

export function addEx21(b: GraphBuilder, fileName: string, text: string): number {
  let parentCik: string | null = null;
  let parentName: string | null = null;
  let html = text;
  if (/<SEC-DOCUMENT>|<SUBMISSION>|<SEC-HEADER>/.test(text.slice(0, 2000))) {
    const h = sgmlHeader(text);
    parentCik = h.cik;
    parentName = h.name;
    if (h.cik && h.sic) b.classify(h.cik, h.sic.code, h.sic.description);
    html = sgmlDocuments(text).find((d) => /^EX-21/i.test(d.type))?.text ?? "";
  }
  parentName ??= ex21Registrant(html);
  if (!parentCik) {
    // ex21_<ticker>.html, else the registrant's name in the SEC titles.
    const t = /ex21[_-]([a-z.]+)\./i.exec(fileName)?.[1]?.toUpperCase();
    parentCik =
      (t && b.directory.byTicker.get(t)) || (parentName && b.directory.byName.get(nameKey(parentName))) || null;
  }
  if (!parentCik) return 0;
  b.company(parentCik, parentName);
  const subs = parseEx21Html(html);
  for (const s of subs) {
    const key = `sub:${parentCik}:${slug(s.name)}`;
    b.node("Company", key, { cik: key, name: s.name });
    b.rel("SUBSIDIARY_OF", key, parentCik, { jurisdiction: s.jurisdiction });
  }
  return subs.length;
}

// ---------- 13F ----------

const xml = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
});

const arr = <T>(v: T | T[] | undefined | null): T[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
const num = (v: unknown): number | null => {
  const n = Number(String(v ?? "").replace(/,/g, ""));
  return String(v ?? "").trim() !== "" && Number.isFinite(n) ? n : null;
};

export function add13f(b: GraphBuilder, fileName: string, text: string): number {
  let fundId: string | null = null;
  let fundName: string | null = null;
  let period: string | null = null;
  let tableXml = text;
  if (/<SEC-DOCUMENT>|<SUBMISSION>|<SEC-HEADER>/.test(text.slice(0, 2000))) {
    const h = sgmlHeader(text);
    fundId = h.cik;
    fundName = h.name;
    period = h.period;
    const docs = sgmlDocuments(text);
    const primary = docs.find((d) => /^13F-HR/i.test(d.type));
    const pm = primary && /<periodOfReport>([0-9]{2})-([0-9]{2})-([0-9]{4})</.exec(primary.text);
    if (!period && pm) period = `${pm[3]}-${pm[1]}-${pm[2]}`;
    tableXml = docs.find((d) => /INFORMATION TABLE/i.test(d.type))?.text ?? "";
  }
  const m = /<(?:\w+:)?informationTable[\s\S]*<\/(?:\w+:)?informationTable>/.exec(tableXml);
  if (!m) return 0;
  const doc = xml.parse(m[0]) as { informationTable?: { infoTable?: unknown } };
  const rows = arr(doc.informationTable?.infoTable as Record<string, unknown>[] | undefined);
  // A bare information table names no filer: a stable key from the file.
  fundId ??= `13f:${slug(fileName.replace(/\.[a-z]+$/i, ""))}`;
  fundName ??= `13F filer of ${fileName}`;
  period ??= "unknown";
  b.node("Fund", fundId, { id: fundId, name: fundName });
  let n = 0;
  for (const r of rows) {
    const issuer = String(r.nameOfIssuer ?? "").trim();
    const cusip = String(r.cusip ?? "")
      .trim()
      .toUpperCase();
    if (!issuer || !/^[0-9A-Z]{9}$/.test(cusip)) continue;
    const amt = r.shrsOrPrnAmt as Record<string, unknown> | undefined;
    const cik = b.directory.byName.get(nameKey(issuer));
    const key = cik
      ? b.company(cik, issuer)
      : b.node("Company", `cusip:${cusip}`, { cik: `cusip:${cusip}`, name: issuer });
    b.rel("HOLDS", fundId, key, { shares: num(amt?.sshPrnamt) ?? 0, value: num(r.value) ?? 0, period });
    n++;
  }
  return n;
}

// ---------- Forms 3/4/5 ----------

const flag = (v: unknown): boolean =>
  ["1", "true"].includes(
    String(v ?? "")
      .trim()
      .toLowerCase(),
  );
const val = (v: unknown): unknown => (v && typeof v === "object" && "value" in v ? (v as { value: unknown }).value : v);

export function addOwnership(b: GraphBuilder, fileName: string, text: string): number {
  const m = /<ownershipDocument>[\s\S]*<\/ownershipDocument>/.exec(text);
  if (!m) return 0;
  const d = (xml.parse(m[0]) as { ownershipDocument: Record<string, unknown> }).ownershipDocument;
  const issuer = d.issuer as Record<string, unknown> | undefined;
  const cik = normCik(issuer?.issuerCik);
  if (!cik) return 0;
  b.company(
    cik,
    String(issuer?.issuerName ?? "").trim() || null,
    String(issuer?.issuerTradingSymbol ?? "").trim() || null,
  );
  const owners = arr(d.reportingOwner as Record<string, unknown>[] | undefined);
  const txs = arr(
    (d.nonDerivativeTable as Record<string, unknown> | undefined)?.nonDerivativeTransaction as
      | Record<string, unknown>[]
      | undefined,
  );
  const form = String(d.documentType ?? "").trim();
  let n = 0;
  for (const o of owners) {
    const id = o.reportingOwnerId as Record<string, unknown> | undefined;
    const name = String(id?.rptOwnerName ?? "").trim();
    const personId = normCik(id?.rptOwnerCik) ?? (name ? `name:${slug(name)}` : null);
    if (!personId) continue;
    const rel = (o.reportingOwnerRelationship ?? {}) as Record<string, unknown>;
    const isDirector = flag(rel.isDirector);
    const isOfficer = flag(rel.isOfficer);
    const title =
      String(rel.officerTitle ?? "").trim() ||
      (isDirector ? "Director" : flag(rel.isTenPercentOwner) ? "10% Owner" : String(rel.otherText ?? "").trim()) ||
      null;
    b.node("Person", personId, { id: personId, name });
    b.rel("INSIDER_OF", personId, cik, { title, is_director: isDirector, is_officer: isOfficer });
    for (const [i, t] of txs.entries()) {
      const coding = (t.transactionCoding ?? {}) as Record<string, unknown>;
      const amounts = (t.transactionAmounts ?? {}) as Record<string, unknown>;
      const date = String(val(t.transactionDate) ?? "").trim() || null;
      b.rel("TRADED", personId, cik, {
        id: `${slug(fileName.replace(/\.[a-z]+$/i, ""))}:${form}:${i + 1}`,
        date,
        code: String(coding.transactionCode ?? "").trim() || null,
        shares: num(val(amounts.transactionShares)),
        price: num(val(amounts.transactionPricePerShare)),
      });
      n++;
    }
    n++;
  }
  return n;
}

// ---------- DEF 14A proxy ----------

const NAME_PART = /^[A-Z][A-Za-z'’.-]*$/;
const isNameLine = (l: string): boolean => {
  const words = l.split(" ");
  return words.length >= 1 && words.length <= 5 && words.every((w) => NAME_PART.test(w) || /^[A-Z]\.$/.test(w));
};

export interface ProxyPeople {
  directors: { name: string; title: string }[];
  officers: { name: string; title: string }[];
}

export function parseProxy(html: string): ProxyPeople {
  const lines = htmlLines(html);
  const directors: { name: string; title: string }[] = [];
  const seen = new Set<string>();
  for (const [i, l] of lines.entries()) {
    if (!/^Director Since:/i.test(l)) continue;
    let j = i - 1;
    let chair = false;
    // Skip separators, "(Nominee for Election)" and a chair line between the name and the block.
    while (j >= 0 && j > i - 12) {
      const x = lines[j] as string;
      if (/^\|?$/.test(x.replace(/\|/g, "").trim()) || /^\(/.test(x)) j--;
      else if (/^chair\b|chair of the board$/i.test(x) && !isNameLine(x)) {
        chair = true;
        j--;
      } else break;
    }
    const parts: string[] = [];
    while (j >= 0 && parts.length < 3) {
      let x = (lines[j] as string).trim();
      const tail = /\s+(Non-Executive|Lead Independent|Lead|Independent)$/i.exec(x);
      if (tail) {
        chair = true;
        x = x.slice(0, tail.index);
      }
      if (!isNameLine(x)) break;
      parts.unshift(x);
      j--;
      if (parts.join(" ").split(" ").length >= 2 && !/^[A-Z]\.?$/.test(parts[0] ?? "")) {
        // "Sue" / "H. Rataj": a lone first name above belongs to the name.
        const above = (lines[j] ?? "").trim();
        if (!(isNameLine(above) && above.split(" ").length === 1)) break;
      }
    }
    const name = parts.join(" ").trim();
    if (name.split(" ").length < 2 || seen.has(name)) continue;
    seen.add(name);
    directors.push({ name, title: chair ? "Chair of the Board" : "Director" });
  }
  const officers: { name: string; title: string }[] = [];
  const text = lines.join("\n");
  const start = /named executive officers\s+and\s+their\s+current\s+positions\s+are:/i.exec(text);
  if (start) {
    const after = text.slice(start.index + start[0].length, start.index + start[0].length + 3000);
    // The list ends at the first line after the last bullet that does not continue an item.
    for (const item of after.split("•").slice(1)) {
      const flat = item.replace(/\|/g, " ").replace(/\s+/g, " ").trim();
      // Items end in ";", "; and" or, the last, "." (a "D." initial is not an end).
      const semi = flat.indexOf(";");
      const entry = (semi >= 0 ? flat.slice(0, semi) : flat.replace(/\.\s.*$|\.$/, "")).trim();
      const comma = entry.indexOf(",");
      if (comma < 0) continue;
      const name = entry.slice(0, comma).trim();
      const title = entry.slice(comma + 1).trim();
      if (!isNameLine(name) || name.split(" ").length < 2 || !title) continue;
      officers.push({ name, title });
    }
  }
  return { directors, officers };
}

export function addProxy(b: GraphBuilder, _fileName: string, html: string): number {
  const cik = normCik(/name="dei:EntityCentralIndexKey"[^>]*>\s*([0-9]+)\s*</.exec(html)?.[1]);
  if (!cik) return 0;
  const name = decodeEntities(/name="dei:EntityRegistrantName"[^>]*>([^<]+)</.exec(html)?.[1] ?? "").trim() || null;
  b.company(cik, name);
  const people = parseProxy(html);
  const person = (n: string) => b.node("Person", `name:${slug(n)}`, { id: `name:${slug(n)}`, name: n });
  for (const d of people.directors) b.rel("DIRECTOR_OF", person(d.name), cik, { title: d.title });
  for (const o of people.officers) b.rel("OFFICER_OF", person(o.name), cik, { title: o.title });
  return people.directors.length + people.officers.length;
}

/** Which parser a file needs, from its name and first bytes. */
export function classify(fileName: string, head: string): "ex21" | "13f" | "ownership" | "proxy" | null {
  if (/<ownershipDocument>/.test(head)) return "ownership";
  if (/13F/i.test(fileName) || /informationTable|13F-HR/.test(head)) return "13f";
  if (/ex-?21/i.test(fileName) || /EX-21/.test(head)) return "ex21";
  if (/def\s?14a|proxy/i.test(fileName) || /DEF 14A/.test(head)) return "proxy";
  return null;
}

// ---------- News ----------

interface FeedItem {
  title?: unknown;
  link?: unknown;
  guid?: unknown;
  pubDate?: unknown;
  tickers?: unknown;
}

/** RSS items of a feed JSON list; returns the number of MENTIONS added. Run after the filings. */
export function addNewsItems(b: GraphBuilder, fileName: string, json: unknown): number {
  if (!Array.isArray(json)) return 0;
  const names = b
    .registrants()
    .map((r) => ({ cik: r.cik, key: nameKey(r.name).replace(/\s*&$/, "") }))
    .filter((r) => r.key.replace(/[^A-Z]/g, "").length >= 4)
    .map((r) => ({ cik: r.cik, re: new RegExp(`(^|[^A-Z0-9])${r.key.replace(/[&]/g, "\\&")}([^A-Z0-9]|$)`) }));
  let n = 0;
  for (const [i, raw] of json.entries()) {
    const item = raw as FeedItem;
    const title = String(item.title ?? "").trim();
    if (!title) continue;
    const ciks = new Set<string>();
    for (const t of String(item.tickers ?? "")
      .split(/[,\s]+/)
      .filter(Boolean)) {
      const cik = b.directory.byTicker.get(t.toUpperCase());
      if (cik) ciks.add(b.company(cik, null));
    }
    const upper = title.toUpperCase();
    for (const r of names) if (r.re.test(upper)) ciks.add(r.cik);
    if (ciks.size === 0) continue;
    const ref = String(item.guid ?? item.link ?? "").trim() || `${fileName}#${i}`;
    const id = `news:${slug(ref).slice(0, 120)}`;
    const when = Date.parse(String(item.pubDate ?? ""));
    b.node("NewsArticle", id, {
      id,
      title,
      published_at: Number.isFinite(when) ? new Date(when).toISOString() : null,
    });
    for (const cik of ciks) {
      b.rel("MENTIONS", id, cik, {});
      n++;
    }
  }
  return n;
}
