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

export function titleCase(s: string): string {
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

export const cellText = (s: string): string => decodeEntities(s).replace(/\s+/g, " ").trim();

/** Which parser a file needs, from its name and first bytes. */
export function classify(fileName: string, head: string): "ex21" | "13f" | "ownership" | "proxy" | null {
  if (/<ownershipDocument>/.test(head)) return "ownership";
  if (/13F/i.test(fileName) || /informationTable|13F-HR/.test(head)) return "13f";
  if (/ex-?21/i.test(fileName) || /EX-21/.test(head)) return "ex21";
  if (/def\s?14a|proxy/i.test(fileName) || /DEF 14A/.test(head)) return "proxy";
  return null;
}
