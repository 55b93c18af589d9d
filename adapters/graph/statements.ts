/**
 * Cypher both graph adapters generate from the model (domain/foundry/graph/model.ts): the
 * MERGE statements of a load, one row's parameters, and the conversion of engine values
 * to plain JSON. Labels are the tenant's (`<prefix>_<name>`), always backtick-quoted;
 * property names come from the model only.
 */

import {
  GRAPH_NODES,
  GRAPH_RELS,
  type GraphNode,
  type GraphPropValue,
  type GraphRel,
  type NodeLabel,
  prefixedName,
  type RelType,
} from "../../domain/foundry/graph/model.ts";
import type { GraphValue, JsonValue } from "../../domain/foundry/graph/ports.ts";

export const q = (prefix: string, name: string): string => `\`${prefixedName(prefix, name)}\``;

/** Node properties other than the key, in model order. */
export function nodeProps(label: NodeLabel): string[] {
  const decl = GRAPH_NODES[label];
  return Object.keys(decl.props).filter((p) => p !== decl.key);
}

/** Relationship properties other than its identity, in model order. */
export function relProps(type: RelType): string[] {
  const decl = GRAPH_RELS[type];
  return Object.keys(decl.props).filter((p) => !decl.identity.includes(p));
}

/** One node's parameters: key, then every declared property (absent -> null). */
export function nodeRow(n: GraphNode): Record<string, GraphPropValue> {
  const row: Record<string, GraphPropValue> = { key: n.key };
  for (const p of nodeProps(n.label)) row[p] = n.props[p] ?? null;
  return row;
}

export function relRow(r: GraphRel): Record<string, GraphPropValue> {
  const row: Record<string, GraphPropValue> = { from: r.from, to: r.to };
  for (const p of Object.keys(GRAPH_RELS[r.type].props)) row[p] = r.props[p] ?? null;
  return row;
}

/**
 * `MERGE` of one node; `src` is `$` (one row as parameters) or `r.` (a row of UNWIND $rows AS r).
 * A null property keeps the stored value (`coalesce`): a later load that knows less (a
 * company seen only in a 13F row) does not erase what an earlier one wrote.
 */
export function mergeNode(prefix: string, label: NodeLabel, src: "$" | "r."): string {
  const key = GRAPH_NODES[label].key;
  const sets = nodeProps(label).map((p) => `n.${p} = coalesce(${src}${p}, n.${p})`);
  return `MERGE (n:${q(prefix, label)} {${key}: ${src}key})${sets.length ? ` SET ${sets.join(", ")}` : ""}`;
}

export function mergeRel(prefix: string, type: RelType, src: "$" | "r."): string {
  const d = GRAPH_RELS[type];
  const ident = d.identity.map((p) => `${p}: ${src}${p}`).join(", ");
  const sets = relProps(type).map((p) => `x.${p} = coalesce(${src}${p}, x.${p})`);
  return (
    `MATCH (a:${q(prefix, d.from)} {${GRAPH_NODES[d.from].key}: ${src}from}), ` +
    `(b:${q(prefix, d.to)} {${GRAPH_NODES[d.to].key}: ${src}to}) ` +
    `MERGE (a)-[x:${q(prefix, type)}${ident ? ` {${ident}}` : ""}]->(b)` +
    (sets.length ? ` SET ${sets.join(", ")}` : "")
  );
}

/** A scalar as GraphValue: integers of either engine become numbers; anything else null. */
export function scalar(v: unknown): GraphValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "bigint") return Number(v);
  const j = json(v);
  return j === null || typeof j !== "object" ? j : JSON.stringify(j);
}

/** Engine values as JSON: numbers, strings, lists, and nodes/relationships as their properties. */
export function json(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(json);
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    // neo4j-driver Integer.
    if (typeof o.toNumber === "function" && "low" in o && "high" in o) return (o as { toNumber(): number }).toNumber();
    // neo4j-driver Node / Relationship / Path: their properties.
    if ("properties" in o && typeof o.properties === "object" && ("labels" in o || "type" in o)) {
      return json(o.properties);
    }
    if (typeof o.toString === "function" && o.constructor && o.constructor !== Object) {
      // Temporal and spatial values of the driver.
      return String(o);
    }
    const out: Record<string, JsonValue> = {};
    for (const [k, x] of Object.entries(o)) {
      // Ladybug's internal fields of nodes and relationships.
      if (k.startsWith("_")) continue;
      out[k] = json(x);
    }
    return out;
  }
  return null;
}
