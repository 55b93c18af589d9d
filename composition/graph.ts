/**
 * The graph engine for a configuration: Neo4j over Bolt when CAIRN_NEO4J_URL is set
 * (config.foundry.neo4j), else the embedded Ladybug database under the data directory.
 * Provisioning uses it as a NamespacePort (one label prefix per tenant), Foundry as a
 * GraphPort (graph features, loads, read queries).
 */
import { LadybugGraph, Neo4jGraph } from "../adapters/graph/index.ts";
import type { Config } from "../config.ts";
import type { GraphEngine } from "../domain/foundry/graph/ports.ts";

export type { GraphEngine } from "../domain/foundry/graph/ports.ts";

export interface OpenGraphOptions {
  /** Ladybug only: page buffer pool in bytes (default 512 MiB) and threads per query (default 2). */
  bufferPoolBytes?: number;
  threads?: number;
}

export function openGraph(config: Config, opts: OpenGraphOptions = {}): GraphEngine {
  const n = config.foundry.neo4j;
  if (n) return new Neo4jGraph({ url: n.url, user: n.user, password: n.password, database: n.database });
  return new LadybugGraph({
    dataDir: config.dataDir,
    ...(opts.bufferPoolBytes !== undefined ? { bufferPoolBytes: opts.bufferPoolBytes } : {}),
    ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
  });
}
