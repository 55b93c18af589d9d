import { SqliteDocumentIndex } from "../../adapters/docindex/index.ts";
import { LadybugGraph } from "../../adapters/graph/index.ts";
import { DuckDbTimeSeries } from "../../adapters/rtdb/index.ts";
import { runNamespaceContract } from "./namespaces.contract.ts";

// Small bounds keep the suite light: 2 open files exercises LRU eviction across tenants.
runNamespaceContract(
  "document index (SQLite FTS5 + sqlite-vec)",
  (dataDir) => new SqliteDocumentIndex({ dataDir, maxOpenFiles: 2 }),
);
runNamespaceContract("time-series (DuckDB)", (dataDir) => new DuckDbTimeSeries({ dataDir, threads: 1 }));
runNamespaceContract(
  "graph (Ladybug)",
  (dataDir) => new LadybugGraph({ dataDir, bufferPoolBytes: 64 * 1024 * 1024, threads: 1 }),
);
