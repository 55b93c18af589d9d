/**
 * The filing parsers of the company graph (see ./parse.ts for the graph each adds): EX-21
 * subsidiaries, 13F-HR holdings, Forms 3/4/5 insiders and trades, DEF 14A directors and officers.
 */
import { XMLParser } from "fast-xml-parser";
import { parse as parseHtml } from "node-html-parser";
import {
  cellText,
  decodeEntities,
  type GraphBuilder,
  htmlLines,
  nameKey,
  normCik,
  sgmlDocuments,
  sgmlHeader,
  slug,
} from "./parse.ts";

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
