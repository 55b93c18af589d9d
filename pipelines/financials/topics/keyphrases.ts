/**
 * Key phrases per document, scored against the whole corpus. Candidates are the 1-3 word
 * n-grams inside runs of content words (text.ts); a candidate's score in a document is
 * (1 + ln tf) x idf x a length weight (two- and three-word phrases name things better
 * than single words). A document keeps its best phrases that do not overlap a better
 * one ("supply chain" suppresses "chain"), and importance is the score over the
 * document's best score, so every document's top topic has importance 1. Emerging-topic
 * detection looks at every phrase a document repeats, not only its top ones.
 */
import { isContentWord, sentences, tokens, topicKey } from "./text.ts";

export interface KeyphraseOptions {
  /** Phrases kept per document. */
  perDocument: number;
  /** A phrase must occur this often in a document to be one of its topics. */
  minCount: number;
}

export const DEFAULT_KEYPHRASE_OPTIONS: KeyphraseOptions = { perDocument: 12, minCount: 2 };

const LENGTH_WEIGHT = [0, 0.6, 1, 1.1] as const;
const MAX_WORDS = 3;

export interface DocumentCandidates {
  /** topic key -> occurrences */
  counts: Map<string, number>;
  /** Sentences as token lists (for sentiment). */
  sentences: string[][];
}

export interface Exclusions {
  /** Words that may not appear in a topic (people's names, the ticker). */
  words: ReadonlySet<string>;
  /** Phrases a topic may not contain (the company's own name: "home depot", not "home"). */
  phrases: readonly string[];
}

const NO_EXCLUSIONS: Exclusions = { words: new Set(), phrases: [] };

/** Candidate phrases of one text; "thanks craig" or "home depot" are not topics of Home Depot's call. */
export function candidates(text: string, exclude: Exclusions = NO_EXCLUSIONS): DocumentCandidates {
  const counts = new Map<string, number>();
  const sents: string[][] = [];
  for (const s of sentences(text)) {
    const toks = tokens(s);
    sents.push(toks);
    let run: string[] = [];
    const flush = () => {
      for (let n = 1; n <= MAX_WORDS; n++) {
        for (let i = 0; i + n <= run.length; i++) {
          const words = run.slice(i, i + n);
          if (n === 1 && (words[0]?.length ?? 0) < 4) continue;
          const key = topicKey(words);
          if (exclude.phrases.some((p) => ` ${key} `.includes(` ${p} `))) continue;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      }
      run = [];
    };
    for (const t of toks) {
      if (isContentWord(t) && !exclude.words.has(t)) run.push(t);
      else flush();
    }
    flush();
  }
  return { counts, sentences: sents };
}

export interface ScoredPhrase {
  topic: string;
  /** Score over the document's best score: (0, 1]. */
  importance: number;
  count: number;
}

export interface ScoredDocument {
  /** Every phrase occurring at least minCount times, best first. */
  all: ScoredPhrase[];
  /** The document's topics: the best phrases that do not overlap a better one. */
  top: ScoredPhrase[];
}

const overlaps = (a: string, b: string) => ` ${a} `.includes(` ${b} `) || ` ${b} `.includes(` ${a} `);

/** Scores every document's phrases given every document's candidates (same order out). */
export function scoreDocuments(
  docs: DocumentCandidates[],
  opts: KeyphraseOptions = DEFAULT_KEYPHRASE_OPTIONS,
): ScoredDocument[] {
  const df = new Map<string, number>();
  for (const d of docs) for (const k of d.counts.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  const n = docs.length;
  return docs.map((d) => {
    const scored: { topic: string; score: number; count: number }[] = [];
    for (const [topic, count] of d.counts) {
      const words = topic.split(" ").length;
      // A lone word needs one more repeat: without a tagger it is as likely a verb as a topic.
      if (count < opts.minCount + (words === 1 ? 1 : 0)) continue;
      const idf = Math.log(1 + n / (df.get(topic) ?? 1));
      scored.push({ topic, count, score: (1 + Math.log(count)) * idf * (LENGTH_WEIGHT[words] ?? 1) });
    }
    scored.sort((a, b) => b.score - a.score || a.topic.localeCompare(b.topic));
    const best = scored[0]?.score ?? 1;
    const all = scored.map((c) => ({
      topic: c.topic,
      count: c.count,
      importance: Math.round((c.score / best) * 1e4) / 1e4,
    }));
    const top: ScoredPhrase[] = [];
    for (const s of all) {
      if (top.length >= opts.perDocument) break;
      if (!top.some((c) => overlaps(c.topic, s.topic))) top.push(s);
    }
    return { all, top };
  });
}
