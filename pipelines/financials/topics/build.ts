/**
 * buildTopics: reads every stored transcript and 8-K document, extracts each document's
 * topics with importance and tone, replaces the topic corpus (topic ids are kept, see
 * TopicStore.replaceCorpus) and recomputes the emerging topics. Deterministic for a
 * given corpus, so re-running it changes nothing but timestamps.
 */
import type { ResearchStores } from "../../../domain/financials/ports.ts";
import type {
  DateBasis,
  EmergingTopic,
  TopicDocument,
  TopicMention,
  TopicSourceType,
} from "../../../domain/financials/topics.ts";
import { markdownToText } from "../filings/index.ts";
import { findReferenceFile } from "../reference/index.ts";
import { DEFAULT_EMERGING_OPTIONS, detectEmergingTopics, type EmergingOptions } from "./emerging.ts";
import {
  candidates,
  DEFAULT_KEYPHRASE_OPTIONS,
  type Exclusions,
  type KeyphraseOptions,
  type ScoredPhrase,
  scoreDocuments,
} from "./keyphrases.ts";
import { type Lexicon, loadLoughranMcDonald, topicTone } from "./sentiment.ts";
import { singular, tokens } from "./text.ts";

interface SourceDoc {
  meta: TopicDocument;
  text: string;
  exclude: Exclusions;
}

/** Words of a company name that name nothing in particular ("Home Depot, Inc." -> home, depot). */
const NAME_NOISE = new Set(["inc", "corp", "corporation", "co", "company", "the", "group", "holdings", "plc", "ltd"]);
const nameWords = (name: string | null) =>
  tokens(name ?? "").filter((t) => t !== "|" && t.length > 1 && !NAME_NOISE.has(t));

/**
 * A company's own name and ticker are not its topics. The name is excluded as a phrase
 * (its first two words) so "home depot" goes but "home improvement" stays.
 */
function companyExclusions(name: string | null, ticker: string | null, people: Iterable<string>): Exclusions {
  const words = nameWords(name);
  const phrase = words.slice(0, 2).join(" ");
  return {
    words: new Set([...people, ...(ticker ? [ticker.toLowerCase()] : []), ...(words.length === 1 ? words : [])]),
    phrases: phrase ? [phrase] : [],
  };
}

/** Signature blocks and press contacts name people, not topics. */
const PEOPLE_LINES = /^\s*(?:(?:By|Name|Title|Contacts?|Date)\s*:|\/s\/)[^\n]*$/gim;

/**
 * Undated calls are placed at the end of the calendar quarter their fiscal label names
 * (flagged date_basis "fiscal_period_estimate"): an approximation for retailers and
 * others whose fiscal year is not the calendar year, never shown as a call_date.
 */
export function fiscalPeriodEstimate(year: number, quarter: number): string {
  return `${year}-${["03-31", "06-30", "09-30", "12-31"][quarter - 1] ?? "12-31"}`;
}

async function gatherDocuments(stores: ResearchStores): Promise<SourceDoc[]> {
  const out: SourceDoc[] = [];
  for (const t of await stores.transcripts.texts()) {
    let date: string | null = t.call_date;
    let basis: DateBasis = "call_date";
    if (!date && t.fiscal_year !== null && t.fiscal_quarter !== null) {
      date = fiscalPeriodEstimate(t.fiscal_year, t.fiscal_quarter);
      basis = "fiscal_period_estimate";
    }
    if (!date) continue;
    // Operators only route the call; speaker names would otherwise become "topics".
    const spoken = t.utterances.filter((u) => u.role !== "operator");
    const exclude = companyExclusions(
      t.company_name,
      t.ticker,
      spoken.flatMap((u) => nameWords(u.speaker)),
    );
    out.push({
      meta: doc(t.doc_id, "transcript", t.cik, t.ticker, t.company_name, date, basis),
      text: spoken.map((u) => u.text).join("\n"),
      exclude,
    });
  }
  for (const f of await stores.filings.texts()) {
    if (!f.filed_date) continue;
    let text = markdownToText(f.markdown, { tables: "drop" }).replace(PEOPLE_LINES, "");
    // An 8-K body starts with a cover page of form language; its content starts at Item 1.01.
    if (/^8-K/i.test(f.doc_type)) {
      const item = text.search(/\bItem\s+\d\.\d{2}\b/i);
      if (item >= 0) text = text.slice(item);
      text = text.replace(/\bSIGNATURES?\b[\s\S]*$/, "");
    }
    out.push({
      meta: doc(
        `${f.filing_key}#${f.sequence}`,
        "filing",
        f.cik,
        f.ticker,
        f.company_name,
        f.filed_date,
        "filing_date",
      ),
      text,
      exclude: companyExclusions(f.company_name, f.ticker, []),
    });
  }
  return out;
}

function doc(
  doc_id: string,
  source_type: TopicSourceType,
  cik: string | null,
  ticker: string | null,
  company_name: string | null,
  doc_date: string,
  date_basis: DateBasis,
): TopicDocument {
  return { doc_id, source_type, cik, ticker, company_name, doc_date, date_basis };
}

function mention(d: SourceDoc, p: ScoredPhrase, sentiment: number): TopicMention {
  return { topic: p.topic, doc_id: d.meta.doc_id, importance: p.importance, sentiment, mentions: p.count };
}

/** True when the sentence holds the topic's words consecutively (singular-normalised). */
function phraseMatcher(topic: string): (toks: readonly string[]) => boolean {
  const words = topic.split(" ");
  return (toks) => {
    const norm = toks.map(singular);
    for (let i = 0; i + words.length <= norm.length; i++) {
      if (words.every((w, j) => norm[i + j] === w || toks[i + j] === w)) return true;
    }
    return false;
  };
}

export interface BuildTopicsOptions {
  /** Directory with the Loughran-McDonald lists; default: news/sentiment/loughran_mcdonald found from `dataDir`. */
  lexiconDir?: string;
  /** Where to look for reference data when lexiconDir is not given. */
  dataDir?: string;
  keyphrases?: KeyphraseOptions;
  emerging?: EmergingOptions;
  now?: () => Date;
}

export interface BuildTopicsReport {
  documents: number;
  topics: number;
  mentions: number;
  emerging: EmergingTopic[];
}

export async function buildTopics(stores: ResearchStores, opts: BuildTopicsOptions = {}): Promise<BuildTopicsReport> {
  const start = opts.dataDir ?? process.cwd();
  const lexDir =
    opts.lexiconDir ??
    findReferenceFile(start, "news/sentiment/loughran_mcdonald") ??
    // A checkout beside the shared data folder (../shared/data).
    findReferenceFile(start, "shared/data/news/sentiment/loughran_mcdonald");
  if (!lexDir) throw new Error(`Loughran-McDonald word lists not found from ${start}: pass the data directory`);
  const lexicon: Lexicon = loadLoughranMcDonald(lexDir);
  const docs = await gatherDocuments(stores);
  const cands = docs.map((d) => candidates(d.text, d.exclude));
  const scored = scoreDocuments(cands, opts.keyphrases ?? DEFAULT_KEYPHRASE_OPTIONS);
  const metas = docs.map((d) => d.meta);
  // Emerging topics are judged on every phrase a document repeats...
  const presence = docs.flatMap((d, i) => (scored[i]?.all ?? []).map((p) => mention(d, p, 0)));
  const emergingInput = detectEmergingTopics(metas, presence, opts.emerging ?? DEFAULT_EMERGING_OPTIONS);
  // ...and their occurrences are stored with each document's own topics, so the
  // companies of an emerging topic can be listed.
  const emergingNames = new Set(emergingInput.map((e) => e.topic));
  const mentions: TopicMention[] = [];
  docs.forEach((d, i) => {
    const s = scored[i];
    if (!s) return;
    const keep = [...s.top, ...s.all.filter((p) => emergingNames.has(p.topic) && !s.top.includes(p))];
    const sents = cands[i]?.sentences ?? [];
    for (const p of keep) mentions.push(mention(d, p, topicTone(lexicon, sents, phraseMatcher(p.topic))));
  });
  const ids = await stores.topics.replaceCorpus(metas, mentions);
  const emerging = await stores.topics.replaceEmerging(emergingInput, (opts.now?.() ?? new Date()).toISOString());
  return { documents: docs.length, topics: ids.size, mentions: mentions.length, emerging };
}
