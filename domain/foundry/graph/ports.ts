/**
 * The graph (spec 1.9: relationship queries in Cypher) as Foundry sees it. Embedded:
 * Ladybug (adapters/graph/ladybug.ts); at scale: Neo4j over Bolt. Every call is scoped
 * to one tenant by code (label prefix), never by anything the caller wrote; statements
 * reaching these methods have been checked by ./cypher.ts (read-only, one statement).
 */
import type { NamespacePort, TenantRef } from "../../tenants/namespaces.ts";
import type { GraphBatch } from "./model.ts";

export type GraphValue = string | number | boolean | null;

/** A whole read-only query ./cypher.ts accepted (natural-language data access). */
export interface CheckedReadQuery {
  cypher: string;
}

/** A graph feature of a dataset spec (2.6) after ./cypher.ts accepted it. */
export interface CheckedGraphFeature {
  /** The entity label the fragment starts from, unprefixed (e.g. `Company`). */
  label: string;
  /** The key property of that label the dataset joins on (e.g. `cik`). */
  keyProperty: string;
  /** The checked fragment, as the caller wrote it. */
  fragment: string;
  output_column: string;
}

export interface GraphPort {
  readonly kind: "ladybug" | "neo4j";
  /**
   * For each key, the single value the fragment returns when run from the tenant's entity
   * `(e:<label> {<keyProperty>: key})`; null where there is no such entity or no row.
   */
  featureValues(t: TenantRef, feature: CheckedGraphFeature, keys: string[]): Promise<Map<string, GraphValue>>;
  /**
   * Merges nodes and relationships (./model.ts) into the tenant's graph: idempotent (a
   * node by its key, a relationship by its endpoints and identity properties); creates the
   * tenant's schema when absent. A relationship whose endpoint is absent is skipped.
   */
  load(t: TenantRef, batch: GraphBatch): Promise<{ nodes: number; rels: number }>;
  /** Runs a checked read-only query for the tenant, at most `limit` rows. */
  read(t: TenantRef, query: CheckedReadQuery, params: Record<string, GraphValue>, limit: number): Promise<GraphRows>;
}

/** Rows of a read query: nodes and relationships as their property maps, lists as arrays. */
export interface GraphRows {
  columns: string[];
  rows: JsonValue[][];
}

export type JsonValue = GraphValue | JsonValue[] | { [k: string]: JsonValue };

/** What composition hands Foundry and provisioning: the graph port and its namespaces. */
export type GraphEngine = NamespacePort & GraphPort & { countRecords(t: TenantRef): Promise<number> };
