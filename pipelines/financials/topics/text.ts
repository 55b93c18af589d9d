/**
 * Sentences, tokens and the words that never start, end or make up a topic. Topic
 * candidates are runs of content words between stop words, punctuation and numbers
 * (the RAKE idea), so the stop list carries most of the linguistic weight: function
 * words, conversational filler of earnings calls ("I think we're really seeing"),
 * generic reporting words ("quarter", "results") and SEC form boilerplate.
 */

const FUNCTION_WORDS = `a about above across after again against all almost along already also although always am
among an and another any anyone anything are around as at away back be became because become becomes been before
being below beside besides between beyond both but by can cannot could did do does doing done down during each
either else elsewhere enough etc even ever every everyone everything except few for from further had has have having
he her here hers herself him himself his how however i if in into is it its itself just least less let like
made make makes making many may me might mine more most much must my myself near neither never next no nobody none
nor not nothing now of off often on once one ones only onto or other others otherwise our ours ourselves out over
own per perhaps please quite rather same several shall she should since so some somebody someone something sometimes
somewhat such than that the their theirs them themselves then there therefore these they this those though through
throughout thus to together too toward towards under until up upon us very via was we well were what whatever when
whenever where whereas whether which while who whoever whole whom whose why will with within without would yet you
your yours yourself yourselves i'm i've i'd i'll we're we've we'd we'll you're you've you'd you'll he's she's it's
that's there's here's what's let's they're they've they'd they'll don't doesn't didn't won't wouldn't can't couldn't
shouldn't isn't aren't wasn't weren't haven't hasn't hadn't`;

/** Earnings-call speech: verbs, hedges, fillers and politeness that carry no topic. */
const SPOKEN = `able absolutely actually add added ahead alright answer anyway appreciate ask asked asking bit call
calls came clearly come comes coming comment comments continue continued continues continuing could couple
course definitely detail details discuss discussed expect expected expecting feel find first frankly get gets
getting give given gives giving glad go goes going good got great guess guys happy hear heard hello help hey hi
hope just keep kind know known last later lead let's line little look looked looking looks lot lots mean means
mentioned morning move moving need needs new obviously okay operator overall particularly point points pretty
probably put question questions quick quickly really remain remains right said saw say saying says second see
seeing seen sense sure take taking talk talked talking tell thank thanks thing things think thinking third thought
time times today touch try trying turn understand want wanted way ways whether work working yeah yes
afternoon evening everybody everyone welcome joining joined pleased proud excited strong stronger
significant significantly important great better best high higher low lower big bigger large larger
slide slides page call-in`;

/** Reporting vocabulary that is in every document and so names nothing. */
const GENERIC = `quarter quarters year years month months week weeks day days period periods fiscal annual
results result number numbers percent percentage basis point bps company companies business businesses
today's year's quarter's prior compared versus vs total forward-looking statements statement looking ended
january february march april may june july august september october november december monday tuesday
wednesday thursday friday inc corp corporation co llc ltd plc nyse nasdaq www com http https
press release releases dated report reports reported reporting current xbrl inline interactive embedded cover
financial unaudited accessed register increase increased increases decrease decreased decreases including excluding
one two three four five six seven eight nine ten eleven twelve hundred thousand million millions billion billions
trillion half dollar dollars`;

/** SEC form language (8-K cover pages, signatures, exhibit indexes). */
const SEC_BOILERPLATE = `registrant registrant's undersigned hereunto thereunto duly authorized pursuant
securities exchange act rule cfr commission file form item items exhibit exhibits incorporated reference herein
hereby thereof therein signature signatures filing furnished deemed jurisdiction employer identification
address telephone zip area code checkmark check box appropriate simultaneously satisfy obligation provisions
soliciting pre-commencement communications elected extended transition complying
accounting standards provided section tender offer trading symbol symbols registered indicate`;

export const STOP_WORDS: ReadonlySet<string> = new Set(
  [FUNCTION_WORDS, SPOKEN, GENERIC, SEC_BOILERPLATE].join(" ").split(/\s+/).filter(Boolean),
);

/** Sentences, on end punctuation followed by a capital or quote, and on line breaks. */
export function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=["“(]?[A-Z])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1);
}

const TOKEN_RE = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*|[,;:()"“”—–!?]/gu;

/** Lower-case tokens; punctuation that breaks a phrase is kept as "|". */
export function tokens(sentence: string): string[] {
  const out: string[] = [];
  for (const m of sentence.toLowerCase().matchAll(TOKEN_RE)) {
    const t = m[0].replace(/’/g, "'");
    if (/^[,;:()"“”—–!?]$/.test(t)) out.push("|");
    else out.push(t.endsWith("'s") ? t.slice(0, -2) : t);
  }
  return out;
}

/** A word that can be part of a topic: letters, not a stop word, not a bare number. */
export function isContentWord(t: string): boolean {
  return t.length >= 2 && !STOP_WORDS.has(t) && /^\p{L}[\p{L}\p{N}'-]*$/u.test(t);
}

const KEEP_S = new Set([
  "sales",
  "states",
  "news",
  "series",
  "species",
  "analysis",
  "business",
  "process",
  "gas",
  "lens",
  "plus",
]);

/** Plural head noun -> singular, so "pro customers" and "pro customer" are one topic. */
export function singular(word: string): string {
  if (KEEP_S.has(word) || word.length <= 3 || /(ss|us|is|as|ics)$/.test(word)) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (/(sses|xes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("'s")) return word.slice(0, -1);
  return word;
}

/** The normalised topic key of a phrase: its words with a singular head. */
export function topicKey(words: string[]): string {
  const last = words.at(-1);
  return last === undefined ? "" : [...words.slice(0, -1), singular(last)].join(" ");
}
