/**
 * The research read models (transcripts, 8-K exhibits, topics) as one bundle of ports:
 * what routes read, what the ingest pipelines write.
 */
import type { FilingStore } from "./presentations.ts";
import type { TopicStore } from "./topics.ts";
import type { TranscriptStore } from "./transcripts.ts";

export interface ResearchStores {
  transcripts: TranscriptStore;
  filings: FilingStore;
  topics: TopicStore;
}
