export { extractCallDate } from "./call-date.ts";
export {
  buildTranscriptRecord,
  type IngestReport,
  ingestTranscriptsDirectory,
  TRANSCRIPT_NAMESPACE,
  type TranscriptContext,
  type TranscriptIngestOptions,
  transcriptContext,
  transcriptDocId,
} from "./ingest.ts";
export {
  type ParsedTranscript,
  parseFileName,
  parsePlainText,
  parseStructured,
  TranscriptFormatError,
} from "./parse.ts";
export { classifyParticipants, countWords, SpeakerMatcher } from "./speakers.ts";
