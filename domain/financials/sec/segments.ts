/**
 * Revenue by segment. The companyfacts API drops every fact with a dimension, so segment
 * revenue comes from XBRL instance documents (contexts with xbrldi:explicitMember) and
 * from flattened fact tables that kept a dimensions column. A segment value is a revenue
 * fact qualified by exactly one breakdown axis (product, business segment, geography),
 * optionally also by srt:ConsolidationItemsAxis = OperatingSegmentsMember, which only
 * says the figure is a segment's own.
 */
import { classifyDuration } from "./calendar.ts";
import { INCOME_CHAINS } from "./concepts.ts";

export interface SegmentFact {
  concept: string;
  axis: string;
  member: string;
  start: string;
  end: string;
  value: number;
  unit: string;
}

export interface InstanceMeta {
  cik: string | null;
  fiscalYearEnd: string | null;
  documentType: string | null;
  /** dei:DocumentPeriodEndDate: the report date, which names the filing with its form. */
  periodEnd: string | null;
  ticker: string | null;
  name: string | null;
}

const REVENUE = new Set<string>(INCOME_CHAINS.revenue);
const QUALIFIER_AXIS = "srt:ConsolidationItemsAxis";
/** Axes that break revenue down into parts of the whole (others qualify it differently). */
export const BREAKDOWN_AXES = new Set([
  "us-gaap:StatementBusinessSegmentsAxis",
  "srt:ProductOrServiceAxis",
  "srt:StatementGeographicalAxis",
  "us-gaap:ContractWithCustomerSalesChannelAxis",
  "us-gaap:SubsegmentsAxis",
  "srt:MajorCustomersAxis",
]);
const QUALIFIER_MEMBER = "us-gaap:OperatingSegmentsMember";

/** The one breakdown (axis, member) of a dimension set, or null when it is not a plain breakdown. */
export function breakdownOf(dims: readonly [string, string][]): { axis: string; member: string } | null {
  const rest = dims.filter(([axis, member]) => !(axis === QUALIFIER_AXIS && member === QUALIFIER_MEMBER));
  if (rest.length !== 1) return null;
  const [axis, member] = rest[0] as [string, string];
  return BREAKDOWN_AXES.has(axis) ? { axis, member } : null;
}

/** "amzn:NorthAmericaSegmentMember" -> "North America Segment" (instances carry no labels). */
export function memberLabel(member: string): string {
  const local = member.includes(":") ? member.slice(member.indexOf(":") + 1) : member;
  return local
    .replace(/Member$/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]{2,})([A-Z][a-z])/g, "$1 $2")
    .trim();
}

const tagRe = (local: string) =>
  new RegExp(`<(?:[A-Za-z0-9_-]+:)?${local}\\b([^>]*)>([\\s\\S]*?)</(?:[A-Za-z0-9_-]+:)?${local}>`, "g");
const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? null;
const text = (body: string, local: string) =>
  new RegExp(`<(?:[A-Za-z0-9_-]+:)?${local}\\b[^>]*>([^<]*)</`).exec(body)?.[1]?.trim() ?? null;

/**
 * Segment revenue facts of an XBRL instance (machine-generated XML: the regular tag shapes
 * below are what the SEC's inline-XBRL extraction emits, with or without the xbrli prefix).
 */
export function parseInstance(xml: string): { meta: InstanceMeta; facts: SegmentFact[] } {
  const contexts = new Map<string, { start: string | null; end: string; dims: [string, string][] }>();
  for (const m of xml.matchAll(tagRe("context"))) {
    const id = attr(m[1] ?? "", "id");
    const body = m[2] ?? "";
    if (!id) continue;
    const dims: [string, string][] = [];
    for (const d of body.matchAll(tagRe("explicitMember"))) {
      const axis = attr(d[1] ?? "", "dimension");
      if (axis) dims.push([axis, (d[2] ?? "").trim()]);
    }
    const start = text(body, "startDate");
    const end = text(body, "endDate") ?? text(body, "instant");
    if (end) contexts.set(id, { start, end, dims });
  }
  const units = new Map<string, string>();
  for (const m of xml.matchAll(tagRe("unit"))) {
    const id = attr(m[1] ?? "", "id");
    const measure = text(m[2] ?? "", "measure");
    if (id && measure) units.set(id, measure.replace(/^iso4217:/, ""));
  }
  const facts: SegmentFact[] = [];
  const factRe = /<([A-Za-z0-9_-]+):([A-Za-z0-9_]+)\b([^>]*\bcontextRef="[^"]*"[^>]*)>([^<]*)<\/\1:\2>/g;
  const dei = new Map<string, string>();
  for (const m of xml.matchAll(factRe)) {
    const [, prefix = "", local = "", attrs = "", raw = ""] = m;
    if (prefix === "dei") {
      if (!dei.has(local)) dei.set(local, raw.trim());
      continue;
    }
    const concept = `${prefix}:${local}`;
    if (!REVENUE.has(concept)) continue;
    const ctx = contexts.get(attr(attrs, "contextRef") ?? "");
    const b = ctx ? breakdownOf(ctx.dims) : null;
    const value = Number(raw.trim());
    if (!ctx || !b || ctx.start === null || !Number.isFinite(value)) continue;
    const unit = units.get(attr(attrs, "unitRef") ?? "") ?? "USD";
    facts.push({ concept, axis: b.axis, member: b.member, start: ctx.start, end: ctx.end, value, unit });
  }
  return {
    meta: {
      cik: dei.get("EntityCentralIndexKey") ?? null,
      fiscalYearEnd: dei.get("CurrentFiscalYearEndDate") ?? null,
      documentType: dei.get("DocumentType") ?? null,
      periodEnd: dei.get("DocumentPeriodEndDate") ?? null,
      ticker: dei.get("TradingSymbol") ?? null,
      name: dei.get("EntityRegistrantName") ?? null,
    },
    facts: dedupe(facts),
  };
}

/** Splits one CSV line, honouring double quotes. */
function csvCells(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** "{'us-gaap:Axis': 'nke:Member', ...}" (a Python dict repr) to pairs. */
function parseDims(raw: string): [string, string][] {
  return [...raw.matchAll(/'([^']+)':\s*'([^']+)'/g)].map((m) => [m[1] ?? "", m[2] ?? ""]);
}

/**
 * A flattened fact table with a dimensions column
 * (namespace,fact,value,units,start_date,end_date,dimensions,period).
 */
export function parseFlatFacts(csv: string): { meta: InstanceMeta; facts: SegmentFact[] } {
  const lines = csv.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = csvCells(lines.shift() ?? "").map((h) => h.trim());
  const col = (n: string) => header.indexOf(n);
  const [ns, fact, val, units, sd, ed, dims] = [
    "namespace",
    "fact",
    "value",
    "units",
    "start_date",
    "end_date",
    "dimensions",
  ].map(col);
  const facts: SegmentFact[] = [];
  const dei = new Map<string, string>();
  if ([ns, fact, val, sd, ed, dims].some((i) => i === undefined || i < 0)) return { meta: emptyMeta(), facts };
  for (const line of lines) {
    const c = csvCells(line);
    const at = (i: number | undefined) => (i === undefined || i < 0 ? "" : (c[i] ?? "").trim());
    if (at(ns) === "dei") {
      if (!dei.has(at(fact)) && at(dims) === "") dei.set(at(fact), at(val));
      continue;
    }
    const concept = `${at(ns)}:${at(fact)}`;
    if (!REVENUE.has(concept)) continue;
    const b = breakdownOf(parseDims(at(dims)));
    const value = Number(at(val));
    const start = at(sd);
    const end = at(ed);
    if (!b || !start || !end || start === end || !Number.isFinite(value)) continue;
    facts.push({ concept, axis: b.axis, member: b.member, start, end, value, unit: at(units) || "USD" });
  }
  return {
    meta: {
      cik: dei.get("EntityCentralIndexKey") ?? null,
      fiscalYearEnd: dei.get("CurrentFiscalYearEndDate") ?? null,
      documentType: dei.get("DocumentType") ?? null,
      periodEnd: dei.get("DocumentPeriodEndDate") ?? null,
      ticker: dei.get("TradingSymbol") ?? null,
      name: dei.get("EntityRegistrantName") ?? null,
    },
    facts: dedupe(facts),
  };
}

const emptyMeta = (): InstanceMeta => ({
  cik: null,
  fiscalYearEnd: null,
  documentType: null,
  periodEnd: null,
  ticker: null,
  name: null,
});

/** One value per (axis, member, period), preferring the first concept of the revenue chain. */
function dedupe(facts: SegmentFact[]): SegmentFact[] {
  const rank = (c: string) => INCOME_CHAINS.revenue.indexOf(c as (typeof INCOME_CHAINS.revenue)[number]);
  const best = new Map<string, SegmentFact>();
  for (const f of facts) {
    const cls = classifyDuration(f.start, f.end);
    if (cls !== "quarter" && cls !== "annual") continue; // year-to-date columns are not periods we serve
    const k = `${f.axis}|${f.member}|${f.start}|${f.end}`;
    const cur = best.get(k);
    if (!cur || rank(f.concept) < rank(cur.concept)) best.set(k, f);
  }
  return [...best.values()];
}
