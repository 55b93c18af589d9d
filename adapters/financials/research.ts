import type { ResearchStores } from "../../domain/financials/ports.ts";
import type { SqlClient } from "../../domain/ports.ts";
import { SqlFilingStore } from "./filings.ts";
import { SqlTopicStore } from "./topics.ts";
import { SqlTranscriptStore } from "./transcripts.ts";

export { RESEARCH_MIGRATIONS } from "./research-migrations.ts";
export { SqlFilingStore, SqlTopicStore, SqlTranscriptStore };

/** The research stores over one SQL database (the control plane's, in main.ts). */
export function openResearchStores(sql: SqlClient): ResearchStores {
  return {
    transcripts: new SqlTranscriptStore(sql),
    filings: new SqlFilingStore(sql),
    topics: new SqlTopicStore(sql),
  };
}
