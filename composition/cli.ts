/**
 * What the operator commands (cli/) open: the same composition functions the service is
 * built from, plus the few stores a one-shot command writes directly. cli/ never imports
 * adapters itself, so there is one place where adapters are wired.
 */
import { openResearchStores } from "../adapters/financials/research.ts";
import { readLocalFeeds, SqlNewsStore } from "../adapters/news/index.ts";
import type { NewsStore } from "../domain/news/ports.ts";
import type { SqlClient } from "../domain/ports.ts";

export { openControlPlane, openDocumentIndex, openFinancials, openTimeSeries } from "./engines.ts";

/** Transcripts, filings and topics over the control plane's database. */
export { openResearchStores as openResearch };

export function openNewsStore(sql: SqlClient): NewsStore {
  return new SqlNewsStore(sql);
}

/** The configured graph (Ladybug or Neo4j), for a seeded tenant's namespace and the demo company graph. */
export { openGraph } from "./graph.ts";

/** News sample files in a folder (RSS/Atom, feed JSON, GDELT, Reddit, X), parsed. */
export { readLocalFeeds };
