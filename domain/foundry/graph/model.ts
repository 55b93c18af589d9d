/**
 * The company graph (spec 1.9), declared once: both adapters derive their schema from it
 * (Ladybug: node and relationship tables; Neo4j: a uniqueness constraint per node key),
 * the Cypher checker (./cypher.ts) accepts only these labels and types, and the loader
 * (pipelines/foundry/graph/) produces batches of it. docs/graph.md describes it.
 *
 * Keys are strings. A Company's key is its SEC CIK in decimal without leading zeros
 * (`0000320193` for Apple: 10 digits, zero-padded, as in the financials and the sync tables); a company known only from a filing that gives no CIK gets a
 * synthetic stable key: `sub:<parent cik>:<slug of its name>` (an EX-21 subsidiary) or
 * `cusip:<cusip>` (a 13F issuer).
 */

export type GraphPropType = "STRING" | "INT64" | "DOUBLE" | "BOOLEAN";

export interface NodeDecl {
  /** The property that identifies a node (unique per tenant). */
  key: string;
  /** Every property, the key included, with its type. */
  props: Record<string, GraphPropType>;
}

export interface RelDecl {
  from: NodeLabel;
  to: NodeLabel;
  props: Record<string, GraphPropType>;
  /**
   * The properties that, with the two endpoints, identify one relationship (MERGE matches
   * on them); empty when a pair of nodes has at most one relationship of this type.
   */
  identity: string[];
}

export const NODE_LABELS = ["Company", "Person", "Fund", "Sector", "Industry", "NewsArticle"] as const;
export type NodeLabel = (typeof NODE_LABELS)[number];

export const REL_TYPES = [
  "SUBSIDIARY_OF",
  "HOLDS",
  "INSIDER_OF",
  "TRADED",
  "DIRECTOR_OF",
  "OFFICER_OF",
  "IN_SECTOR",
  "IN_INDUSTRY",
  "MENTIONS",
] as const;
export type RelType = (typeof REL_TYPES)[number];

export const GRAPH_NODES: Record<NodeLabel, NodeDecl> = {
  Company: {
    key: "cik",
    props: { cik: "STRING", name: "STRING", ticker: "STRING", sector: "STRING", industry: "STRING" },
  },
  Person: { key: "id", props: { id: "STRING", name: "STRING" } },
  /** A 13F filer; `id` is the filer's CIK. */
  Fund: { key: "id", props: { id: "STRING", name: "STRING" } },
  Sector: { key: "name", props: { name: "STRING" } },
  Industry: { key: "name", props: { name: "STRING" } },
  NewsArticle: { key: "id", props: { id: "STRING", title: "STRING", published_at: "STRING" } },
};

export const GRAPH_RELS: Record<RelType, RelDecl> = {
  /** (subsidiary)-[:SUBSIDIARY_OF]->(parent), from EX-21. */
  SUBSIDIARY_OF: { from: "Company", to: "Company", props: { jurisdiction: "STRING" }, identity: [] },
  /** (fund)-[:HOLDS]->(issuer), from 13F-HR: shares and value (USD) at the report period (YYYY-MM-DD). */
  HOLDS: {
    from: "Fund",
    to: "Company",
    props: { shares: "DOUBLE", value: "DOUBLE", period: "STRING" },
    identity: ["period"],
  },
  /** From Forms 3/4/5: the reporting owner's relationship to the issuer. */
  INSIDER_OF: {
    from: "Person",
    to: "Company",
    props: { title: "STRING", is_director: "BOOLEAN", is_officer: "BOOLEAN" },
    identity: [],
  },
  /** One non-derivative transaction of a Form 4/5; `id` is `<accession or file>:<n>`. */
  TRADED: {
    from: "Person",
    to: "Company",
    props: { id: "STRING", date: "STRING", code: "STRING", shares: "DOUBLE", price: "DOUBLE" },
    identity: ["id"],
  },
  /** From the DEF 14A proxy. */
  DIRECTOR_OF: { from: "Person", to: "Company", props: { title: "STRING" }, identity: [] },
  OFFICER_OF: { from: "Person", to: "Company", props: { title: "STRING" }, identity: [] },
  IN_SECTOR: { from: "Company", to: "Sector", props: {}, identity: [] },
  IN_INDUSTRY: { from: "Company", to: "Industry", props: {}, identity: [] },
  MENTIONS: { from: "NewsArticle", to: "Company", props: {}, identity: [] },
};

export function isNodeLabel(s: string): s is NodeLabel {
  return (NODE_LABELS as readonly string[]).includes(s);
}

export function isRelType(s: string): s is RelType {
  return (REL_TYPES as readonly string[]).includes(s);
}

/** A property value the graph stores. */
export type GraphPropValue = string | number | boolean | null;

export interface GraphNode {
  label: NodeLabel;
  /** The value of the label's key property. */
  key: string;
  /** Other properties (the key property may be repeated; it must then equal `key`). */
  props: Record<string, GraphPropValue>;
}

export interface GraphRel {
  type: RelType;
  /** Key of the start node (of label GRAPH_RELS[type].from). */
  from: string;
  /** Key of the end node. */
  to: string;
  props: Record<string, GraphPropValue>;
}

/** What a loader hands an adapter: nodes first, then relationships between them. */
export interface GraphBatch {
  nodes: GraphNode[];
  rels: GraphRel[];
}

/** The tenant's name for a label or relationship type: `<prefix>_<name>`. */
export function prefixedName(prefix: string, name: string): string {
  if (!/^t_[0-9a-z]{1,64}$/.test(prefix)) throw new Error(`invalid graph tenant prefix: ${prefix}`);
  if (!isNodeLabel(name) && !isRelType(name)) throw new Error(`not a graph model name: ${name}`);
  return `${prefix}_${name}`;
}

/** Checks a batch against the model (labels, types, property names and value types); throws Error. */
export function validateBatch(batch: GraphBatch): void {
  const typeOk = (t: GraphPropType, v: GraphPropValue): boolean =>
    v === null ||
    (t === "STRING" && typeof v === "string") ||
    (t === "BOOLEAN" && typeof v === "boolean") ||
    ((t === "INT64" || t === "DOUBLE") && typeof v === "number" && Number.isFinite(v));
  for (const n of batch.nodes) {
    const decl = GRAPH_NODES[n.label];
    if (!decl) throw new Error(`unknown node label ${n.label}`);
    if (typeof n.key !== "string" || n.key === "") throw new Error(`${n.label}: empty key`);
    for (const [k, v] of Object.entries(n.props)) {
      const t = decl.props[k];
      if (!t) throw new Error(`${n.label}: unknown property ${k}`);
      if (!typeOk(t, v)) throw new Error(`${n.label}.${k}: expected ${t}`);
      if (k === decl.key && v !== n.key) throw new Error(`${n.label}: key property differs from key`);
    }
  }
  for (const r of batch.rels) {
    const decl = GRAPH_RELS[r.type];
    if (!decl) throw new Error(`unknown relationship type ${r.type}`);
    for (const [k, v] of Object.entries(r.props)) {
      const t = decl.props[k];
      if (!t) throw new Error(`${r.type}: unknown property ${k}`);
      if (!typeOk(t, v)) throw new Error(`${r.type}.${k}: expected ${t}`);
    }
    for (const k of decl.identity) {
      if (r.props[k] === undefined || r.props[k] === null) throw new Error(`${r.type}: identity property ${k} missing`);
    }
  }
}
