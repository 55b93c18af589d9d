export {
  type BuildTopicsOptions,
  type BuildTopicsReport,
  buildTopics,
  fiscalPeriodEstimate,
} from "./build.ts";
export { DEFAULT_EMERGING_OPTIONS, detectEmergingTopics, type EmergingOptions } from "./emerging.ts";
export {
  candidates,
  DEFAULT_KEYPHRASE_OPTIONS,
  type DocumentCandidates,
  type Exclusions,
  type KeyphraseOptions,
  type ScoredDocument,
  type ScoredPhrase,
  scoreDocuments,
} from "./keyphrases.ts";
export { countTone, type Lexicon, loadLoughranMcDonald, netTone, topicTone } from "./sentiment.ts";
export { isContentWord, STOP_WORDS, sentences, singular, tokens, topicKey } from "./text.ts";
